// Cross-protocol signatures (issue 34, item 1), attack-shaped: page script asks the keystore's
// generic `sign` / `signHybrid` (ML-DSA-65 context chosen by the caller) for signatures over the
// exact signed bytes of a session prekey or of a container header, puts them into a real bundle or
// header and runs the real verifier. App signatures are domain-separated (docs/KEYSTORE.md#app-signatures),
// so each forgery must be refused (before the fix every one of them verified); the dedicated header
// request signs only a parsed header naming the identity.
import { test, expect, type Page } from './test.js';

type SignTests = typeof import('./fixtures/keystore-signing-page.js');
declare global {
  interface Window { signTests: SignTests }
}

const PAGE = '/tests/playwright/fixtures/keystore-signing-page.html';

async function load(page: Page): Promise<void> {
  await page.goto(PAGE);
  await expect(page).toHaveTitle('ready');
}

function storeName(tag: string): string {
  return `${tag}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

test('attack: a prekey signed through sign / signHybrid (the attacker\'s ML-KEM key in the victim\'s bundle) is refused by the bundle verifier', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.signTests.forgedPrekey(n), storeName('forged-prekey'));
  expect(r).toEqual({ genuine: 'verified', signHybrid: 'BUNDLE_INVALID', sign: 'BUNDLE_INVALID' });
});

test('attack: container header signatures made through sign / signHybrid are refused (attacker-made container, swapped into a genuine one)', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.signTests.forgedHeader(n), storeName('forged-header'));
  const refused = { attackerMade: 'INVALID_SIGNATURE', genuine: 'verified', swapped: 'INVALID_SIGNATURE' };
  expect(r).toEqual({ 'hybrid/signHybrid': refused, 'hybrid/sign': refused, 'classic/sign': refused });
});

test('attack: the dedicated header request signs only a whole signed-version header that names the identity', async ({ page }) => {
  await load(page);
  const r = await page.evaluate((n) => window.signTests.headerRequest(n), storeName('header-request'));
  expect(r).toEqual({
    genuine: true, prekeyBytes: 'BAD_MAGIC', shorter: 'TRUNCATED', longer: 'NON_CANONICAL', version4: 'UNSUPPORTED_VERSION',
    otherIdentity: 'SIGNER_MISMATCH', hybridIdentityClassicHeader: 'SIGNER_MISMATCH', classicIdentityHybridHeader: 'SIGNER_MISMATCH',
  });
});
