// Seed corpus of fuzz/fuzz_targets/hpke_open.rs (node fuzz/hpke_corpus.mjs fuzz/corpus/hpke_open), sealed by the independent @hpke/core + @hpke/hybridkem-x-wing
// to the fuzz recipient (X-Wing seed 0x11 x 32, info "veilkit fuzz", aad "aad").
import { writeFileSync } from 'node:fs';
import { Aes256Gcm, CipherSuite, HkdfSha256 } from '@hpke/core';
import { XWing } from '@hpke/hybridkem-x-wing';
const dir = process.argv[2];
const suite = new CipherSuite({ kem: new XWing(), kdf: new HkdfSha256(), aead: new Aes256Gcm() });
const kp = await suite.kem.generateKeyPairDerand(new Uint8Array(32).fill(0x11));
const te = new TextEncoder();
const box = async (pt, info = 'veilkit fuzz', aad = 'aad') => {
  const s = await suite.createSenderContext({ recipientPublicKey: kp.publicKey, info: te.encode(info), ekm: new Uint8Array(64).fill(pt.length & 0xff) });
  const ct = new Uint8Array(await s.seal(pt, te.encode(aad)));
  return Buffer.concat([Buffer.from(s.enc), Buffer.from(ct)]);
};
const write = (name, b) => writeFileSync(`${dir}/${name}`, b);
write('valid_empty.bin', await box(new Uint8Array(0)));
write('valid_hello.bin', await box(te.encode('hello, sealed box')));
write('valid_1k.bin', await box(new Uint8Array(1000).fill(7)));
const good = await box(te.encode('flip me'));
const flipped = Buffer.from(good); flipped[1125] ^= 1; // inside the ciphertext (the box is 1143 bytes)
write('invalid_flipped_ct.bin', flipped);
const flippedEnc = Buffer.from(good); flippedEnc[5] ^= 0x80;
write('invalid_flipped_enc.bin', flippedEnc);
write('invalid_wrong_info.bin', await box(te.encode('other info'), 'veilkit fuzY'));
write('invalid_wrong_aad.bin', await box(te.encode('other aad'), 'veilkit fuzz', 'aaD'));
write('invalid_short.bin', good.subarray(0, 1135));
write('invalid_truncated_tag.bin', good.subarray(0, good.length - 1));
// Too short to be a box: the target seals these as plaintexts (round trip and a flipped byte).
write('invalid_empty.bin', new Uint8Array(0));
write('invalid_short_plaintext.bin', te.encode('short plaintext for the round trip'));
