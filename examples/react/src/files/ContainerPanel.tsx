import { useEffect, useState } from 'react';
import { inspectContainer, openContainer, type ContainerInspection, type FileUnlock, type VerificationReport, type WrapInfo } from 'veilkit';
import { useDecryptFile, useVeil, type useIdentity } from 'veilkit/react';
import { Progress } from './Progress';
import { describeError, formatBytes, hex, isAbort, useObjectUrl } from '../util';

interface Props {
  file: File;
  identity: ReturnType<typeof useIdentity>;
}

function wrapText(w: WrapInfo): string {
  switch (w.type) {
    case 'argon2id': return `password (Argon2id, ${w.memoryKib / 1024} MiB, ${w.iterations} passes, ${w.parallelism} lanes)`;
    case 'pbkdf2': return `password (PBKDF2, ${w.iterations} iterations)`;
    case 'recipient': return `recipient ${hex(w.recipientId, 8)} (X-Wing, key version ${w.keyVersion})`;
    case 'group': return `group ${hex(w.groupId, 8)} (key version ${w.keyVersion})`;
    case 'threshold': return `threshold ${w.t} of ${w.n}`;
  }
}

/** The public header of a container, read without any key. */
function Inspection({ info }: { info: ContainerInspection }) {
  const h = info.header;
  return (
    <dl className="facts" data-testid="inspection">
      <dt>Format</dt><dd>VOLLVALT version {h.version} · {h.mode} · {h.hashAlgorithm}</dd>
      <dt>Plaintext</dt><dd>{formatBytes(h.plaintextSize)} in <span data-testid="chunk-count">{h.chunkCount}</span> chunk{h.chunkCount === 1 ? '' : 's'} of {formatBytes(h.chunkSize)}</dd>
      <dt>Wraps</dt><dd><ul data-testid="wraps">{h.wraps.map((w, i) => <li key={i}>{wrapText(w)}</li>)}</ul></dd>
      <dt>Signer</dt>
      <dd data-testid="signer" data-signature={info.signature}>
        {h.signer === null
          ? 'unsigned'
          : <>{info.signature === 'invalid' ? 'INVALID signature' : info.signature} · Ed25519 <code>{hex(h.signer.ed25519, 12)}</code>{h.signer.mlDsa65 !== undefined ? ' + ML-DSA-65' : ''}</>}
      </dd>
      <dt>Merkle root</dt><dd><code data-testid="merkle-root">{hex(h.merkleRoot)}</code></dd>
      <dt>Length</dt><dd>{info.lengthValid === false ? 'truncated or extended — will not decrypt' : 'as the header says'}</dd>
    </dl>
  );
}

/** Inspects a dropped `.vvlt`, then decrypts it (verified: nothing is released before every chunk checks out). */
export function ContainerPanel({ file, identity }: Props) {
  const { pool, keystore } = useVeil();
  const decrypt = useDecryptFile();
  const [info, setInfo] = useState<ContainerInspection>();
  const [inspectError, setInspectError] = useState<unknown>();
  const [password, setPassword] = useState('');
  const [report, setReport] = useState<VerificationReport | string>();
  const url = useObjectUrl(decrypt.result);
  const outName = file.name.replace(/\.vvlt$/i, '') || 'decrypted';

  useEffect(() => {
    if (pool === undefined) return;
    const ac = new AbortController();
    inspectContainer(file, { pool, signal: ac.signal }).then(setInfo, (e: unknown) => { if (!ac.signal.aborted) setInspectError(e); });
    return () => { ac.abort(); };
  }, [file, pool]);

  const wraps = info?.header.wraps ?? [];
  const hasPassword = wraps.some((w) => w.type === 'argon2id' || w.type === 'pbkdf2');
  const hasRecipient = wraps.some((w) => w.type === 'recipient');
  const unlock: FileUnlock | undefined = hasPassword
    ? (password.length > 0 ? { password } : undefined)
    : (hasRecipient && keystore !== undefined && identity.identity !== undefined ? { keystore, identity: identity.identity } : undefined);

  const verifyAll = async () => {
    if (unlock === undefined) return;
    setReport('verifying…');
    try {
      const c = await openContainer(file, unlock, { ...(pool === undefined ? {} : { pool }) });
      try { setReport(await c.verify()); } finally { c.dispose(); }
    } catch (e) {
      setReport(`failed: ${describeError(e)}`);
    }
  };

  return (
    <div className="panel" data-testid="container-panel">
      <h3>Container <code>{file.name}</code> ({formatBytes(file.size)})</h3>
      {info === undefined && inspectError === undefined && <p>reading the header…</p>}
      {inspectError !== undefined && <p className="error" data-testid="inspect-error">Not a readable container: {describeError(inspectError)}</p>}
      {info !== undefined && <Inspection info={info} />}
      {info !== undefined && (
        <>
          <fieldset disabled={decrypt.status === 'pending'}>
            <legend>Unlock</legend>
            {hasPassword && (
              <input type="password" autoComplete="current-password" placeholder="Password" data-testid="decrypt-password"
                value={password} onChange={(e) => { setPassword(e.target.value); }} />
            )}
            {!hasPassword && hasRecipient && (identity.identity === undefined
              ? <p className="hint">Encrypted to an identity: create or import it on the <a href="#keys">Keys</a> page.</p>
              : <p className="hint">With my identity <code>{identity.identity.label}</code>{identity.locked ? ' (locked: unlock it on the Keys page)' : ''}.</p>)}
          </fieldset>
          <div className="row">
            <button type="button" data-testid="decrypt" disabled={unlock === undefined || decrypt.status === 'pending'}
              onClick={() => { if (unlock !== undefined) void decrypt.run(file, unlock); }}>Decrypt</button>
            <button type="button" className="secondary" data-testid="verify" disabled={unlock === undefined} onClick={() => { void verifyAll(); }}>
              Open and verify every chunk
            </button>
            <span role="status" data-testid="file-status" data-status={decrypt.status} className={decrypt.status === 'error' ? 'error' : ''}>
              {decrypt.status === 'pending' && 'decrypting…'}
              {decrypt.status === 'success' && 'decrypted and verified'}
              {decrypt.status === 'error' && (isAbort(decrypt.error) ? 'cancelled — nothing was released' : `failed: ${describeError(decrypt.error)}`)}
            </span>
          </div>
          <Progress status={decrypt.status} progress={decrypt.progress} onCancel={decrypt.cancel} />
          {report !== undefined && (
            <p data-testid="verify-report">
              {typeof report === 'string'
                ? report
                : `${report.intact ? 'intact' : 'DAMAGED'}: ${report.chunkCount} chunks authenticated, Merkle root ${report.merkleValid ? 'matches' : 'does not match'}, ${report.badChunks.length} bad`}
            </p>
          )}
          {decrypt.status === 'success' && decrypt.result !== undefined && url !== undefined && (
            <div className="row">
              <a className="button" href={url} download={outName} data-testid="download-plain">Download {outName} ({formatBytes(decrypt.result.size)})</a>
              <span data-testid="signature-info">signature: {decrypt.result.signature.status}</span>
            </div>
          )}
        </>
      )}
    </div>
  );
}
