/**
 * A minimal in-memory SignalProtocolStore (the `StorageType` of
 * @privacyresearch/libsignal-protocol-typescript) for the session benchmarks
 * (bench/session.ts). Maps only, no persistence: the same shape as the store
 * of the package's own tests. Session records are kept in the package's
 * record form (the string of `SessionRecord.serialize()`), which the library
 * parses and re-serializes on every encrypt and decrypt.
 *
 * Bench-only departures, stated where a real store would differ:
 * - every identity is trusted (trust decisions are the application's);
 * - `keepOneTimePrekeys`: `removePreKey` keeps the key, so one first message can be
 *   answered again and again (the respond case measures the same work each time).
 */
import type { KeyPairType, SessionRecordType, StorageType } from '@privacyresearch/libsignal-protocol-typescript';

export class MemorySignalStore implements StorageType {
  readonly sessions = new Map<string, SessionRecordType>();
  private readonly preKeys = new Map<string, KeyPairType>();
  private readonly signedPreKeys = new Map<string, KeyPairType>();
  private readonly identities = new Map<string, ArrayBuffer>();

  constructor(
    private readonly identity: KeyPairType,
    private readonly registrationId: number,
    private readonly keepOneTimePrekeys = false,
  ) {}

  async getIdentityKeyPair(): Promise<KeyPairType | undefined> {
    return this.identity;
  }
  async getLocalRegistrationId(): Promise<number | undefined> {
    return this.registrationId;
  }
  /** (identifier, identityKey, direction): every identity is trusted here. */
  async isTrustedIdentity(): Promise<boolean> {
    return true;
  }
  async saveIdentity(encodedAddress: string, publicKey: ArrayBuffer): Promise<boolean> {
    const had = this.identities.has(encodedAddress);
    this.identities.set(encodedAddress, publicKey);
    return had;
  }
  async loadPreKey(keyId: string | number): Promise<KeyPairType | undefined> {
    return this.preKeys.get(String(keyId));
  }
  async storePreKey(keyId: number | string, keyPair: KeyPairType): Promise<void> {
    this.preKeys.set(String(keyId), keyPair);
  }
  async removePreKey(keyId: number | string): Promise<void> {
    if (!this.keepOneTimePrekeys) this.preKeys.delete(String(keyId));
  }
  async storeSession(encodedAddress: string, record: SessionRecordType): Promise<void> {
    this.sessions.set(encodedAddress, record);
  }
  async loadSession(encodedAddress: string): Promise<SessionRecordType | undefined> {
    return this.sessions.get(encodedAddress);
  }
  async loadSignedPreKey(keyId: number | string): Promise<KeyPairType | undefined> {
    return this.signedPreKeys.get(String(keyId));
  }
  async storeSignedPreKey(keyId: number | string, keyPair: KeyPairType): Promise<void> {
    this.signedPreKeys.set(String(keyId), keyPair);
  }
  async removeSignedPreKey(keyId: number | string): Promise<void> {
    this.signedPreKeys.delete(String(keyId));
  }
}
