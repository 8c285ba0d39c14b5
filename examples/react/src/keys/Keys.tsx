import { useState } from 'react';
import { useIdentity, useVeil } from 'veilkit/react';
import { blobOf, describeError, hex, useObjectUrl } from '../util';

/** Runs one action at a time and keeps its outcome for the status line. */
function useAction() {
  const [busy, setBusy] = useState<string>();
  const [message, setMessage] = useState<{ text: string; error: boolean }>();
  const run = (name: string, f: () => Promise<string>) => {
    setBusy(name);
    setMessage(undefined);
    f().then(
      (text) => { setMessage({ text, error: false }); },
      (e: unknown) => { setMessage({ text: `${name} failed: ${describeError(e)}`, error: true }); },
    ).finally(() => { setBusy(undefined); });
  };
  return { busy, message, run };
}

/**
 * Keys: one identity in this browser's keystore ("veilkit-demo"). Its private keys never leave the
 * keystore's worker; the page sees handles and public keys. The recovery phrase is shown once, right
 * after creation, and then dropped from the page's state.
 */
export function Keys() {
  const id = useIdentity();
  const { keystore } = useVeil();
  const { busy, message, run } = useAction();
  const [label, setLabel] = useState('me');
  const [phrase, setPhrase] = useState<string>();
  const [passphrase, setPassphrase] = useState('');
  const [backupPassphrase, setBackupPassphrase] = useState('');
  const [backup, setBackup] = useState<Blob>();
  const [importFile, setImportFile] = useState<File>();
  const backupUrl = useObjectUrl(backup);
  const me = id.identity;

  const create = () => { run('create', async () => {
    const handle = await id.create({ label });
    // The phrase restores the identity on another device: shown here once, never stored by the page.
    // (Asked of the keystore for exactly this handle: useIdentity's current identity may still be
    // the previous snapshot right after create() resolves.)
    if (keystore === undefined) throw new Error('no keystore');
    setPhrase(await keystore.exportRecoveryPhrase(handle));
    return `created ${handle.label}`;
  }); };

  return (
    <section className="screen" data-testid="screen-keys">
      <h2>Keys</h2>
      <p className="lead">An identity (Ed25519, X25519, ML-KEM-768, X-Wing and ML-DSA-65 keys) kept in IndexedDB by the keystore worker; the page only ever holds public keys.</p>

      <div className="panel" data-testid="identity">
        <h3>Identity</h3>
        {id.status === 'pending' && me === undefined && <p>opening the keystore…</p>}
        {me === undefined && id.status !== 'pending' && (
          <div className="row">
            <input type="text" value={label} onChange={(e) => { setLabel(e.target.value); }} aria-label="Label" data-testid="label" />
            <button type="button" data-testid="create" disabled={busy !== undefined} onClick={create}>Create identity</button>
          </div>
        )}
        {me !== undefined && (
          <dl className="facts">
            <dt>Label</dt><dd data-testid="identity-label">{me.label}</dd>
            <dt>Id</dt><dd><code data-testid="identity-id">{me.id}</code></dd>
            <dt>Keys</dt><dd>{me.mlDsa ? 'hybrid signing (Ed25519 + ML-DSA-65)' : 'Ed25519 signing'} · X-Wing for files</dd>
            {id.bundle !== undefined && <><dt>Ed25519</dt><dd><code data-testid="identity-ed25519">{hex(id.bundle.ed25519)}</code></dd></>}
            <dt>State</dt><dd data-testid="lock-state" data-locked={String(id.locked)}>{id.locked ? 'locked' : 'unlocked'}</dd>
          </dl>
        )}
        {phrase !== undefined && (
          <div className="phrase" data-testid="phrase-box">
            <p><strong>Recovery phrase — write it down now; it is not shown again.</strong></p>
            <p className="words" data-testid="phrase">{phrase}</p>
            <button type="button" data-testid="phrase-done" onClick={() => { setPhrase(undefined); }}>I have written it down</button>
          </div>
        )}
      </div>

      {me !== undefined && (
        <div className="panel">
          <h3>Lock</h3>
          <p className="hint">A passphrase encrypts the keystore at rest; locked, no private key can be used until it is unlocked.</p>
          <div className="row">
            <input type="password" placeholder="Keystore passphrase" data-testid="passphrase" value={passphrase}
              onChange={(e) => { setPassphrase(e.target.value); }} />
            {!id.locked && (
              <button type="button" data-testid="lock" disabled={busy !== undefined || passphrase.length === 0} onClick={() => { run('lock', async () => {
                await id.setPassphrase(passphrase);
                await id.lock();
                return 'locked';
              }); }}>Set passphrase and lock</button>
            )}
            {id.locked && (
              <button type="button" data-testid="unlock" disabled={busy !== undefined || passphrase.length === 0} onClick={() => { run('unlock', async () => {
                await id.unlock(passphrase);
                return 'unlocked';
              }); }}>Unlock</button>
            )}
          </div>
        </div>
      )}

      <div className="panel">
        <h3>Backup</h3>
        <p className="hint">An encrypted file of every identity in the keystore (Argon2id over the backup passphrase).</p>
        <div className="row">
          <input type="password" placeholder="Backup passphrase" data-testid="backup-passphrase" value={backupPassphrase}
            onChange={(e) => { setBackupPassphrase(e.target.value); }} />
        </div>
        <div className="row">
          <button type="button" data-testid="export-backup" disabled={me === undefined || id.locked || busy !== undefined || backupPassphrase.length === 0}
            onClick={() => { run('export', async () => {
              const bytes = await id.exportBackup(backupPassphrase);
              setBackup(blobOf(bytes));
              return `backup ready (${bytes.length} bytes)`;
            }); }}>Export backup</button>
          {backupUrl !== undefined && <a className="button secondary" href={backupUrl} download="veilkit-backup.vkb" data-testid="download-backup">Download veilkit-backup.vkb</a>}
          {me !== undefined && (
            <button type="button" className="danger" data-testid="delete" disabled={busy !== undefined || id.locked}
              onClick={() => { run('delete', async () => { await id.remove(); return 'identity deleted from this browser'; }); }}>Delete identity</button>
          )}
        </div>
        <div className="row">
          <input type="file" data-testid="backup-file" onChange={(e) => { setImportFile(e.target.files?.[0]); }} />
          <button type="button" data-testid="import-backup" disabled={importFile === undefined || busy !== undefined || backupPassphrase.length === 0}
            onClick={() => { run('import', async () => {
              if (importFile === undefined) return 'no file';
              await id.importBackup(new Uint8Array(await importFile.arrayBuffer()), backupPassphrase);
              return 'backup imported';
            }); }}>Import backup</button>
        </div>
      </div>

      <p role="status" data-testid="keys-status" className={message?.error === true ? 'error' : ''}>{busy !== undefined ? `${busy}…` : message?.text}</p>
    </section>
  );
}
