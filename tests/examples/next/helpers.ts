import { mkdirSync, copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, type BrowserContext, type Page, type TestInfo } from '@playwright/test';

// What the Next example's specs share: console watching, screenshots, signing up on a page.

export const ROOT = resolve(import.meta.dirname, '../../..');

/** Every console error and warning of a page, and uncaught errors: hydration mismatches land here. */
export function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  return problems;
}

export async function shot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const path = testInfo.outputPath(`next-${name}.png`);
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: 'image/png' });
  // The README's images (docs/images/next-*.png): refreshed on request, from the Turbopack build.
  if (process.env.VEILKIT_UPDATE_SCREENSHOTS === '1' && testInfo.project.name === 'turbopack') {
    mkdirSync(join(ROOT, 'docs/images'), { recursive: true });
    copyFileSync(path, join(ROOT, 'docs/images', `next-${name}.png`));
  }
}

/** A new page of `context` at `path`, signed up as `name`; resolves once `ready` (a test id) shows `readyText`. */
export async function signUpAt(context: BrowserContext, path: string, name: string, ready: { testId: string; text: string }, height = 720): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  await page.setViewportSize({ width: 1000, height });
  const problems = watch(page);
  await page.goto(path);
  await page.getByLabel('your name').fill(name);
  await page.getByRole('button', { name: 'Create identity' }).click();
  await expect(page.getByTestId('me')).toHaveText(name, { timeout: 60_000 });
  await expect(page.getByTestId(ready.testId)).toHaveText(ready.text, { timeout: 60_000 });
  return { page, problems };
}
