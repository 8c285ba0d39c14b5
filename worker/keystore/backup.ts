/** Backups (docs/KEYSTORE.md#backup): every identity's recovery record and, as an option, the message history, sealed under a backup passphrase. */
import { wipe } from '../../ts/validate.js';
import {
  checkArgon2Budget, checkBackupEntry, checkPassphraseKdf, openBackupContents, sealBackupContents, wipeBackupHistory, type BackupContents,
  type BackupEntry, type BackupHistory,
} from '../../ts/keystore-format.js';
import type { ImportBackupResult, KdfBudget, PassphraseKdfParams } from '../../protocol/keystore.protocol.js';
import { checkFormat, commit, notFound, read, storageError, withLock } from './db.js';
import { request } from './idb.js';
import { buildIdentity, handleOf } from './identities.js';
import { checkPassphrase } from '../../protocol/args.js';
import { passphraseKey } from './lock.js';
import { withSecret, type IdentityRecord, type SecretRecord, type StateRecord } from './records.js';
import { announce, readState, sessionFor, type Store } from './store.js';
import { HISTORY_STORES, applyHistoryImport, exportHistory, forgetHistoryKeys, planHistoryImport, type HistoryImportPlan } from './history.js';

export async function exportBackup(s: Store, passphrase: string, params: PassphraseKdfParams | undefined, budget: KdfBudget | undefined, includeHistory: unknown): Promise<Uint8Array> {
  if (includeHistory !== undefined && typeof includeHistory !== 'boolean') throw new TypeError('includeHistory must be a boolean');
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
  let history: BackupHistory | undefined;
  try {
    // Read (and size-checked) after the identities: a history appended in between is included, which loses nothing.
    if (includeHistory === true) history = await exportHistory(s);
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
    const contents: BackupContents = { identities: entries, ...(history ? { history } : {}) };
    return sealBackupContents(contents, p, salt, (sa, pp) => passphraseKey(passphrase, sa, pp));
  } finally {
    for (const e of entries) wipe(e.entropy, e.seed);
    if (history) wipeBackupHistory(history);
  }
}

export async function importBackup(s: Store, backup: Uint8Array, passphrase: string, budget: KdfBudget | undefined, includeHistory: unknown): Promise<ImportBackupResult> {
  if (includeHistory !== undefined && typeof includeHistory !== 'boolean') throw new TypeError('includeHistory must be a boolean');
  let contents: BackupContents;
  try {
    contents = openBackupContents(backup, (salt, params) => passphraseKey(passphrase, salt, params), budget);
  } finally {
    // The page transferred its copy of the backup to this worker: nothing else holds it.
    if (backup instanceof Uint8Array) wipe(backup);
  }
  const entries = contents.identities;
  const history = includeHistory === false ? undefined : contents.history;
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
      // Sealed before the commit (its transaction may only issue IndexedDB requests); a conflict throws here, before any change.
      const plan: HistoryImportPlan | undefined = history ? await planHistoryImport(s, session, history) : undefined;
      const historyResult = plan && history ? { conversations: history.conversations.length, entries: plan.entries.length, skipped: plan.skipped } : undefined;
      const writesHistory = plan !== undefined && (plan.root !== undefined || plan.conversations.length > 0 || plan.entries.length > 0);
      if (built.length === 0 && !writesHistory) return { imported: [], skipped, ...(historyResult ? { history: historyResult } : {}) };
      // One transaction: the identities and the history are imported together or not at all.
      const revision = await commit(s, state.revision, async (tx) => {
        for (const b of built) {
          await request(tx.objectStore('identities').add(b.identity));
          for (const r of b.secrets) await request(tx.objectStore('secrets').add(r));
        }
        if (plan && writesHistory) await applyHistoryImport(tx, plan);
      }, writesHistory ? HISTORY_STORES : []);
      if (plan?.root) forgetHistoryKeys(session);
      const imported = built.map((b) => handleOf(b.identity));
      announce(s, { change: 'backup-imported', revision, ids: imported.map((h) => h.id) });
      return { imported, skipped, ...(historyResult ? { history: historyResult } : {}) };
    });
  } finally {
    for (const e of entries) wipe(e.entropy, e.seed);
    if (contents.history) wipeBackupHistory(contents.history);
  }
}
