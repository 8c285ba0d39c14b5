import { useState } from 'react';
import type { EncryptFileOptions } from 'veilkit';
import { useEncryptFile, useVeil, type useIdentity } from 'veilkit/react';
import { Progress } from './Progress';
import { describeError, formatBytes, isAbort, useObjectUrl } from '../util';

interface Props {
  file: File;
  identity: ReturnType<typeof useIdentity>;
  /** Opens the result in the container panel (inspect and decrypt it without a round trip to disk). */
  onInspect: (container: File) => void;
}

/** Encrypts one file with a password or to the identity of this browser's keystore. */
export function EncryptPanel({ file, identity, onInspect }: Props) {
  const { keystore } = useVeil();
  const encrypt = useEncryptFile();
  const [mode, setMode] = useState<'password' | 'recipient'>('password');
  const [password, setPassword] = useState('');
  const [sign, setSign] = useState(true);
  const url = useObjectUrl(encrypt.result);
  const name = `${file.name}.vvlt`;
  const me = identity.identity;
  const canSign = me !== undefined && !identity.locked && keystore !== undefined;

  const ready = mode === 'password' ? password.length > 0 : identity.bundle !== undefined;
  const start = () => {
    const options: EncryptFileOptions = {
      ...(mode === 'password' ? { password } : { recipients: identity.bundle === undefined ? [] : [identity.bundle] }),
      ...(sign && canSign ? { sign: { keystore, identity: me } } : {}),
    };
    void encrypt.run(file, options);
  };

  return (
    <div className="panel" data-testid="encrypt-panel">
      <h3>Encrypt <code>{file.name}</code> ({formatBytes(file.size)})</h3>
      <fieldset disabled={encrypt.status === 'pending'}>
        <legend>Protection</legend>
        <div className="row">
          <label><input type="radio" name="mode" checked={mode === 'password'} onChange={() => { setMode('password'); }} /> Password</label>
          <label><input type="radio" name="mode" checked={mode === 'recipient'} onChange={() => { setMode('recipient'); }} data-testid="mode-recipient" /> Recipient: my identity</label>
        </div>
        {mode === 'password' && (
          <input
            type="password"
            autoComplete="new-password"
            placeholder="Password (Argon2id, in a worker)"
            data-testid="password"
            value={password}
            onChange={(e) => { setPassword(e.target.value); }}
          />
        )}
        {mode === 'recipient' && (identity.bundle === undefined
          ? <p className="hint">No identity yet: create one on the <a href="#keys">Keys</a> page.</p>
          : <p className="hint">To <code>{identity.identity?.label}</code> (X-Wing key of identity <code>{identity.bundle.id.slice(0, 16)}…</code>); only this keystore can open it.</p>)}
        {me !== undefined && (
          <label className="row">
            <input type="checkbox" checked={sign && canSign} disabled={!canSign} onChange={(e) => { setSign(e.target.checked); }} data-testid="sign" />
            Sign with my identity{me.mlDsa ? ' (Ed25519 + ML-DSA-65)' : ' (Ed25519)'}{identity.locked ? ' — unlock the keystore first' : ''}
          </label>
        )}
      </fieldset>
      <div className="row">
        <button type="button" data-testid="encrypt" disabled={!ready || encrypt.status === 'pending'} onClick={start}>Encrypt</button>
        <span role="status" data-testid="file-status" data-status={encrypt.status} className={encrypt.status === 'error' ? 'error' : ''}>
          {encrypt.status === 'pending' && 'encrypting…'}
          {encrypt.status === 'success' && 'encrypted'}
          {encrypt.status === 'error' && (isAbort(encrypt.error) ? 'cancelled — nothing was written' : `failed: ${describeError(encrypt.error)}`)}
        </span>
      </div>
      <Progress status={encrypt.status} progress={encrypt.progress} onCancel={encrypt.cancel} />
      {encrypt.status === 'success' && encrypt.result !== undefined && url !== undefined && (
        <div className="row">
          <a className="button" href={url} download={name} data-testid="download-container">Download {name} ({formatBytes(encrypt.result.size)})</a>
          <button
            type="button"
            className="secondary"
            data-testid="inspect-result"
            onClick={() => { if (encrypt.result !== undefined) onInspect(new File([encrypt.result], name)); }}
          >Inspect and decrypt it</button>
        </div>
      )}
    </div>
  );
}
