/**
 * The few promise helpers the keystore needs over IndexedDB (no dependency:
 * the keystore worker imports nothing outside veilkit, so an unbundled worker
 * never has to find a package in `node_modules`).
 *
 * Transactions stay alive across these promises: each resolves from its
 * request's `success` event, and the continuation runs as a microtask before
 * the transaction can auto-commit.
 */

/** The result of one request. */
export function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    r.onsuccess = () => resolve(r.result);
    r.onerror = () => reject(r.error ?? new DOMException('request failed', 'UnknownError'));
  });
}

/** Resolves when `tx` commits; rejects with its error (or an AbortError) when it aborts or fails. */
export function done(tx: IDBTransaction): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new DOMException('transaction failed', 'UnknownError'));
    tx.onabort = () => reject(tx.error ?? new DOMException('transaction aborted', 'AbortError'));
  });
}

/** Aborts `tx` unless it has already finished. */
export function abort(tx: IDBTransaction): void {
  try {
    tx.abort();
  } catch {
    /* already committed or aborted */
  }
}

export interface OpenHandlers {
  /** Runs inside the versionchange transaction; throwing (or a rejected promise) aborts the upgrade. */
  upgrade(db: IDBDatabase, oldVersion: number, newVersion: number, tx: IDBTransaction): Promise<void>;
  /** Another connection wants a newer version: this one has been closed. */
  onClose(): void;
}

/** Opens `name` at `version`, running `upgrade` when it is older. Rejects with the browser's error (VersionError for a newer database). */
export function openDatabase(name: string, version: number, h: OpenHandlers): Promise<IDBDatabase> {
  return new Promise<IDBDatabase>((resolve, reject) => {
    let open: IDBOpenDBRequest;
    try {
      open = indexedDB.open(name, version);
    } catch (e) {
      reject(e);
      return;
    }
    open.onupgradeneeded = (e) => {
      const tx = open.transaction;
      if (!tx) return;
      h.upgrade(open.result, e.oldVersion, e.newVersion ?? version, tx).catch(() => abort(tx));
    };
    open.onsuccess = () => {
      const db = open.result;
      // A newer veilkit in another tab wants to upgrade: step aside rather than block it.
      db.onversionchange = () => {
        db.close();
        h.onClose();
      };
      db.onclose = () => h.onClose();
      resolve(db);
    };
    open.onerror = () => reject(open.error ?? new DOMException('open failed', 'UnknownError'));
    open.onblocked = () => { /* waits for the older connections to close */ };
  });
}

/** Visits every record of `source` with a cursor (`visit` may update or delete through it). */
export async function eachCursor(
  source: IDBObjectStore | IDBIndex, range: IDBKeyRange | null, visit: (c: IDBCursorWithValue) => void,
): Promise<void> {
  const r = source.openCursor(range);
  await new Promise<void>((resolve, reject) => {
    r.onsuccess = () => {
      const c = r.result;
      if (!c) {
        resolve();
        return;
      }
      try {
        visit(c);
        c.continue();
      } catch (e) {
        reject(e);
      }
    };
    r.onerror = () => reject(r.error ?? new DOMException('cursor failed', 'UnknownError'));
  });
}
