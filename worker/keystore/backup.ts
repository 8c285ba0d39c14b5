/** Backups (docs/KEYSTORE.md#backup): every identity's recovery record, sealed under a backup passphrase. */
import { wipe } from '../../ts/validate.js';
import {
  checkArgon2Budget, checkBackupEntry, checkPassphraseKdf, openBackup, sealBackup, type BackupEntry,
} from '../../ts/keystore-format.js';
import type { ImportBackupResult, KdfBudget, PassphraseKdfParams } from '../keystore.protocol.js';
import { checkFormat, commit, notFound, read, storageError, withLock } from './db.js';
import { request } from './idb.js';
import { buildIdentity, handleOf } from './identities.js';
import { checkPassphrase } from './args.js';
import { passphraseKey } from './lock.js';
import { withSecret, type IdentityRecord, type SecretRecord, type StateRecord } from './records.js';
import { announce, readState, sessionFor, type Store } from './store.js';

export async function exportBackup(s: Store, passphrase: string, params: PassphraseKdfParams | undefined, budget: KdfBudget | undefined): Promise<Uint8Array> {
  const p = checkPassphraseKdf(params);
  checkArgon2Budget(p, budget); // a reader with the same budget must be able to open it
  checkPassphrase(passphrase);
  // One read transaction: the state, the identities and their recovery records as of one point in time.
  let state: StateRecord | undefined;
  let identities: IdentityRecord[];
  let recoveries: (SecretRecord | undefined)[];
  try {
    const tx = s.db.transaction(['meta', 'identities', 'secrets']);
    const stateP = request(tx.objectStore('meta').get('state')) as Promise<StateRecord | undefined>;
    identities = (await request(tx.objectStore('identities').getAll())) as IdentityRecord[];
    recoveries = await Promise.all(identities.map((r) => request(tx.objectStore('secrets').get(`${r.id}/recovery`)) as Promise<SecretRecord | undefined>));
    state = await stateP;
  } catch (e) {
    throw storageError(e);
  }
  const session = sessionFor(s, checkFormat(state));
  const order = identities.map((r, i) => ({ r, rec: recoveries[i] }));
  order.sort((x, y) => x.r.createdAt - y.r.createdAt || (x.r.id < y.r.id ? -1 : 1));
  const entries: BackupEntry[] = [];
  try {
    for (const { r, rec } of order) {
      if (!rec) throw notFound(`the recovery record of identity ${r.id}`);
      const recovery = await withSecret(session, rec, (sec) => sec.slice());
      entries.push({
        mlDsa: r.mlDsa, createdAt: r.createdAt, label: r.label, entropy: recovery.subarray(0, 32), seed: recovery.subarray(32, 96),
        bip39Passphrase: new TextDecoder('utf-8', { ignoreBOM: true }).decode(recovery.subarray(96)),
      });
      recovery.subarray(96).fill(0);
    }
    const salt = crypto.getRandomValues(new Uint8Array(16));
    return sealBackup(entries, p, salt, (sa, pp) => passphraseKey(passphrase, sa, pp));
  } finally {
    for (const e of entries) wipe(e.entropy, e.seed);
  }
}

export async function importBackup(s: Store, backup: Uint8Array, passphrase: string, budget: KdfBudget | undefined): Promise<ImportBackupResult> {
  let entries: BackupEntry[];
  try {
    entries = openBackup(backup, (salt, params) => passphraseKey(passphrase, salt, params), budget);
  } finally {
    // The page transferred its copy of the backup to this worker: nothing else holds it.
    if (backup instanceof Uint8Array) wipe(backup);
  }
  try {
    // The recovery phrase must restore exactly the keys that are installed.
    for (const e of entries) checkBackupEntry(e);
    return await withLock(s.name, async () => {
      const state = await readState(s);
      const session = sessionFor(s, state);
      const built: { identity: IdentityRecord; secrets: SecretRecord[]; siblingId: string }[] = [];
      const skipped: string[] = [];
      for (const e of entries) {
        const b = await buildIdentity(session, e.seed, e.entropy, e.bip39Passphrase, e.label, e.mlDsa, e.createdAt);
        const present = (await read(s.db, 'identities', b.identity.id)) ?? (await read(s.db, 'identities', b.siblingId));
        if (present || built.some((x) => x.identity.id === b.identity.id || x.identity.id === b.siblingId)) skipped.push(b.identity.id);
        else built.push(b);
      }
      if (built.length === 0) return { imported: [], skipped };
      const revision = await commit(s, state.revision, async (tx) => {
        for (const b of built) {
          await request(tx.objectStore('identities').add(b.identity));
          for (const r of b.secrets) await request(tx.objectStore('secrets').add(r));
        }
      });
      const imported = built.map((b) => handleOf(b.identity));
      announce(s, { change: 'backup-imported', revision, ids: imported.map((h) => h.id) });
      return { imported, skipped };
    });
  } finally {
    for (const e of entries) wipe(e.entropy, e.seed);
  }
}
