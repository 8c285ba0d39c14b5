// Placeholder written by the pkg helper so the `veilkit/react` entry builds; the hooks helper's
// ts/react/index.ts replaces this file.
export {};
