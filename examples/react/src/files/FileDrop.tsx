import { useEffect, useState } from 'react';
import { CONTAINER } from 'veilkit';
import { useIdentity } from 'veilkit/react';
import { DropZone } from './DropZone';
import { EncryptPanel } from './EncryptPanel';
import { ContainerPanel } from './ContainerPanel';

/** Whether a file starts with the container magic ("VOLLVALT"): then it is inspected and decrypted, else encrypted. */
async function isContainer(file: Blob): Promise<boolean> {
  const head = await file.slice(0, CONTAINER.magic.length).text();
  return head === CONTAINER.magic;
}

/**
 * File drop: drop (or pick) a file to encrypt it into a `.vvlt` container; drop a `.vvlt` to
 * inspect and decrypt it. Everything runs in the provider's worker pool; nothing leaves the page.
 */
export function FileDrop() {
  const [file, setFile] = useState<File>();
  const [kind, setKind] = useState<'plain' | 'container'>();
  const identity = useIdentity();

  useEffect(() => {
    let live = true;
    setKind(undefined);
    if (file !== undefined) void isContainer(file).then((c) => { if (live) setKind(c ? 'container' : 'plain'); });
    return () => { live = false; };
  }, [file]);

  return (
    <section className="screen" data-testid="screen-files">
      <h2>File drop</h2>
      <p className="lead">
        Drop a file to encrypt it into a post-quantum <code>.vvlt</code> container (a password, or your
        identity from the Keys page as the recipient); drop a <code>.vvlt</code> back to inspect and decrypt it.
      </p>
      <DropZone onFile={setFile} file={file} />
      {file !== undefined && kind === 'plain' && (
        <EncryptPanel key={`${file.name}:${file.size}:${file.lastModified}`} file={file} identity={identity} onInspect={setFile} />
      )}
      {file !== undefined && kind === 'container' && (
        <ContainerPanel key={`${file.name}:${file.size}:${file.lastModified}`} file={file} identity={identity} />
      )}
    </section>
  );
}
