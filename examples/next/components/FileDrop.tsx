'use client';
// The file drop: a file is encrypted with a password into a .vvlt container (Argon2id, chunks on the
// provider's worker pool); a .vvlt is decrypted back. Everything stays in this browser.
import { useEffect, useState, type DragEvent } from 'react';
import { useDecryptFile, useEncryptFile } from 'veilkit/react';
import { describe } from './errors';

function useObjectUrl(blob: Blob | undefined): string | undefined {
  const [url, setUrl] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (blob === undefined) {
      setUrl(undefined);
      return;
    }
    const u = URL.createObjectURL(blob);
    setUrl(u);
    return () => URL.revokeObjectURL(u);
  }, [blob]);
  return url;
}

const mb = (n: number): string => (n / 1_048_576).toFixed(n < 1_048_576 ? 2 : 1);

export function FileDrop() {
  const encrypt = useEncryptFile();
  const decrypt = useDecryptFile();
  const [file, setFile] = useState<File | undefined>(undefined);
  const [password, setPassword] = useState('');
  const [over, setOver] = useState(false);
  const sealing = file !== undefined && !file.name.endsWith('.vvlt');
  const job = sealing ? encrypt : decrypt;
  const result: Blob | undefined = sealing ? encrypt.result : decrypt.result;
  const url = useObjectUrl(result);
  const outName = file === undefined ? '' : sealing ? `${file.name}.vvlt` : file.name.replace(/\.vvlt$/, '');

  function choose(f: File | undefined) {
    encrypt.reset();
    decrypt.reset();
    setFile(f);
  }

  function drop(event: DragEvent) {
    event.preventDefault();
    setOver(false);
    choose(event.dataTransfer.files[0]);
  }

  function start() {
    if (file === undefined || password === '') return;
    if (sealing) void encrypt.run(file, { password });
    else void decrypt.run(file, { password });
  }

  const p = job.progress;
  return (
    <section className="card" aria-label="file drop">
      <h2>File drop</h2>
      <div className="drop" data-testid="drop" data-over={over} onDragOver={(e) => { e.preventDefault(); setOver(true); }}
        onDragLeave={() => setOver(false)} onDrop={drop}>
        <p>Drop a file to encrypt, or a <code>.vvlt</code> to decrypt</p>
        <input type="file" aria-label="choose a file" onChange={(e) => choose(e.target.files?.[0])} />
      </div>
      {file !== undefined && (
        <>
          <p className="muted" data-testid="file">{file.name} — {mb(file.size)} MB — will be {sealing ? 'encrypted' : 'decrypted'}</p>
          <div className="row">
            <input type="password" aria-label="file password" placeholder="password" value={password}
              onChange={(e) => setPassword(e.target.value)} />
            <button type="button" onClick={start} disabled={password === '' || job.status === 'pending'}>
              {sealing ? 'Encrypt' : 'Decrypt'}
            </button>
            {job.status === 'pending' && <button type="button" className="secondary" onClick={job.cancel}>Cancel</button>}
          </div>
        </>
      )}
      {job.status === 'pending' && (
        <div data-testid="progress">
          <progress max={p?.bytesTotal ?? 1} value={p?.bytesDone ?? 0} />
          <p className="muted">
            {p === undefined || p.phase === 'kdf' ? 'Deriving the key (Argon2id)…'
              : `${mb(p.bytesDone)} / ${mb(p.bytesTotal)} MB${p.bytesPerSecond > 0 ? ` — ${mb(p.bytesPerSecond)} MB/s` : ''}`}
          </p>
        </div>
      )}
      {job.status === 'error' && <p className="error" data-testid="file-error">{describe(job.error)}</p>}
      {job.status === 'success' && url !== undefined && (
        <p data-testid="file-done">
          {sealing ? 'Encrypted' : 'Decrypted and verified'}: <a href={url} download={outName}>{outName}</a> ({mb(result?.size ?? 0)} MB)
        </p>
      )}
    </section>
  );
}
