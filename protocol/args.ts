/** Checks of the arguments of `keystore/*` requests. */

/** A passphrase (lock, unlock, backups): a non-empty string, else `TypeError`. */
export function checkPassphrase(passphrase: unknown): string {
  if (typeof passphrase !== 'string' || passphrase.length === 0) throw new TypeError('passphrase must be a non-empty string');
  return passphrase;
}

/** A store name (also checked on the page, ts/keystore.ts and ts/keystore-frame.ts): 1–64 of `A-Z a-z 0-9 . _ -`. */
export function checkName(name: unknown): string {
  if (typeof name !== 'string') throw new TypeError('name must be a string');
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(name)) throw new RangeError('name must be 1 to 64 characters from A-Z a-z 0-9 . _ -');
  return name;
}
