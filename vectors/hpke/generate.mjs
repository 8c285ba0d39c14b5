// Generates xwing_hkdfsha256_aes256gcm.json: derandomised HPKE (RFC 9180) base-mode vectors for
// veilkit's sealed-box suite (KEM X-Wing 0x647a, KDF HKDF-SHA256 0x0001, AEAD AES-256-GCM 0x0002),
// computed by the independent implementation @hpke/core + @hpke/hybridkem-x-wing (exact versions in
// the root package.json). Every input is SHA-256-derived from a label, so a rerun gives the same file.
//
//   node vectors/hpke/generate.mjs > vectors/hpke/xwing_hkdfsha256_aes256gcm.json
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Aes256Gcm, CipherSuite, HkdfSha256 } from '@hpke/core';
import { XWing } from '@hpke/hybridkem-x-wing';

const hex = (b) => Buffer.from(b instanceof ArrayBuffer ? new Uint8Array(b) : b).toString('hex');
/** `n` bytes: SHA-256(label ‖ counter) blocks. */
function bytes(label, n) {
  const out = Buffer.alloc(n);
  for (let i = 0, off = 0; off < n; i++, off += 32) {
    createHash('sha256').update(`${label}/${i}`).digest().copy(out, off);
  }
  return new Uint8Array(out);
}
const version = (name) => JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url))).version;

const suite = new CipherSuite({ kem: new XWing(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
// [plaintext length, info length, aad length]
const shapes = [[0, 0, 0], [1, 0, 0], [13, 20, 0], [16, 0, 16], [17, 64, 7], [256, 37, 100], [1000, 1, 1], [4096, 300, 0]];
const tests = [];
for (const [i, [ptLen, infoLen, aadLen]] of shapes.entries()) {
  const sk = bytes(`veilkit hpke vector ${i} sk`, 32);
  const ekm = bytes(`veilkit hpke vector ${i} ekm`, 64);
  const info = bytes(`veilkit hpke vector ${i} info`, infoLen);
  const aad = bytes(`veilkit hpke vector ${i} aad`, aadLen);
  const pt = bytes(`veilkit hpke vector ${i} pt`, ptLen);
  const kp = await suite.kem.generateKeyPairDerand(sk);
  const pk = new Uint8Array(await suite.kem.serializePublicKey(kp.publicKey));
  const sender = await suite.createSenderContext({ recipientPublicKey: kp.publicKey, info, ekm });
  const ct = new Uint8Array(await sender.seal(pt, aad));
  const exports = [];
  // L <= 255 only: @hpke/common 1.10.1 writes I2OSP(L, 2) as `new Uint8Array([0, L])`, which wraps for
  // L >= 256 (RFC 9180 §4: two bytes, big-endian), so its longer exports are not RFC 9180 values.
  for (const [ctxLen, L] of [[0, 32], [11, 1], [5, 64], ...(i === 0 ? [[3, 255]] : [])]) {
    const exporterContext = bytes(`veilkit hpke vector ${i} export ${L}`, ctxLen);
    exports.push({ exporterContext: hex(exporterContext), L, exportedValue: hex(await sender.export(exporterContext, L)) });
  }
  // The independent library must open its own output with the recipient's secret key.
  const recipient = await suite.createRecipientContext({ recipientKey: kp, enc: sender.enc, info });
  if (hex(await recipient.open(ct, aad)) !== hex(pt)) throw new Error(`vector ${i}: self-check failed`);
  tests.push({
    sk: hex(sk), pk: hex(pk), ekm: hex(ekm), info: hex(info), aad: hex(aad), pt: hex(pt),
    enc: hex(sender.enc), ct: hex(ct), exports,
  });
}
process.stdout.write(`${JSON.stringify({
  description: 'HPKE (RFC 9180) base mode, KEM X-Wing (0x647a), KDF HKDF-SHA256 (0x0001), AEAD AES-256-GCM (0x0002): single-shot seal (sequence 0) and exports; sealed box = enc || ct',
  generator: `vectors/hpke/generate.mjs with @hpke/core ${version('@hpke/core')} + @hpke/hybridkem-x-wing ${version('@hpke/hybridkem-x-wing')} + @hpke/common ${version('@hpke/common')} (createSenderContext with a fixed 64-byte ekm = X-Wing eseed)`,
  mode: 0, kem_id: 0x647a, kdf_id: 1, aead_id: 2, suite_id: '48504b45647a00010002',
  tests,
}, null, 1)}\n`);
