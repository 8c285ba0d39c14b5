/**
 * Playwright's web-first matchers only work on Playwright's own objects; in WebKit `expect` is
 * extended with the ones the specs use, polling the adapter's pages and locators until they hold or
 * the expect timeout (5 s unless given) runs out.
 */
import { WebKitLocator, WebKitPageImpl, type ElementState } from './page.js';

type Expected = string | RegExp;

function matches(actual: string, expected: Expected, contains: boolean): boolean {
  if (expected instanceof RegExp) return expected.test(actual);
  return contains ? actual.includes(expected) : actual === expected;
}

function normalize(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

interface MatcherThis { isNot: boolean }
interface Result { pass: boolean; message: () => string; name: string; expected: unknown; actual: unknown }

async function poll(
  ctx: MatcherThis, name: string, expected: unknown, timeout: number | undefined,
  read: () => Promise<unknown>, test: (actual: unknown) => boolean,
): Promise<Result> {
  const deadline = Date.now() + (timeout ?? 5000);
  let actual: unknown;
  for (;;) {
    actual = await read().catch((e: unknown) => `<error: ${String(e)}>`);
    const pass = test(actual);
    if (pass !== ctx.isNot || Date.now() > deadline) {
      return {
        pass, name, expected, actual,
        message: () => `${name}${ctx.isNot ? ' (not)' : ''}: expected ${String(expected)}, got ${JSON.stringify(actual)} (WebKit adapter, polled ${timeout ?? 5000} ms)`,
      };
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function asPage(received: unknown, name: string): WebKitPageImpl {
  if (received instanceof WebKitPageImpl) return received;
  throw new Error(`${name}: the WebKit adapter's matcher needs a page from the WebKit adapter`);
}

function asLocator(received: unknown, name: string): WebKitLocator {
  if (received instanceof WebKitLocator) return received;
  throw new Error(`${name}: the WebKit adapter's matcher needs a locator from the WebKit adapter`);
}

function element(ctx: MatcherThis, name: string, received: unknown, expected: unknown, timeout: number | undefined, test: (s: ElementState) => boolean, property?: string): Promise<Result> {
  const loc = asLocator(received, name);
  return poll(ctx, name, expected, timeout, () => loc._state(property), (s) => (s as ElementState).exists && test(s as ElementState));
}

/** The matchers `expect.extend` gets in WebKit. */
export const webkitMatchers = {
  toHaveTitle(this: MatcherThis, received: unknown, expected: Expected, options: { timeout?: number } = {}) {
    const page = asPage(received, 'toHaveTitle');
    return poll(this, 'toHaveTitle', expected, options.timeout, () => page.title(), (t) => matches(normalize(String(t)), expected, false));
  },
  toHaveURL(this: MatcherThis, received: unknown, expected: Expected, options: { timeout?: number } = {}) {
    const page = asPage(received, 'toHaveURL');
    const want = typeof expected === 'string' ? new URL(expected, page._context._options.baseURL).href : expected;
    return poll(this, 'toHaveURL', expected, options.timeout, () => page._currentUrl(), (u) => matches(String(u), want, false));
  },
  toHaveText(this: MatcherThis, received: unknown, expected: Expected, options: { timeout?: number } = {}) {
    return element(this, 'toHaveText', received, expected, options.timeout, (s) => matches(normalize(s.text), expected, false));
  },
  toContainText(this: MatcherThis, received: unknown, expected: Expected, options: { timeout?: number } = {}) {
    return element(this, 'toContainText', received, expected, options.timeout, (s) => matches(normalize(s.text), expected, true));
  },
  toHaveAttribute(this: MatcherThis, received: unknown, name: string, expected: Expected, options: { timeout?: number } = {}) {
    return element(this, 'toHaveAttribute', received, expected, options.timeout, (s) => s.attributes[name] !== undefined && matches(s.attributes[name], expected, false));
  },
  toHaveValue(this: MatcherThis, received: unknown, expected: Expected, options: { timeout?: number } = {}) {
    return element(this, 'toHaveValue', received, expected, options.timeout, (s) => matches(s.value, expected, false));
  },
  toBeDisabled(this: MatcherThis, received: unknown, options: { timeout?: number } = {}) {
    return element(this, 'toBeDisabled', received, 'disabled', options.timeout, (s) => s.disabled);
  },
  toBeChecked(this: MatcherThis, received: unknown, options: { timeout?: number } = {}) {
    return element(this, 'toBeChecked', received, 'checked', options.timeout, (s) => s.checked);
  },
  toHaveJSProperty(this: MatcherThis, received: unknown, property: string, expected: unknown, options: { timeout?: number } = {}) {
    return element(this, 'toHaveJSProperty', received, expected, options.timeout, (s) => JSON.stringify(s.property) === JSON.stringify(expected), property);
  },
};
