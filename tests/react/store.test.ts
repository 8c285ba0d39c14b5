// createVeilStore: cached frozen snapshots, the server snapshot, no-op sets, reset.
import { describe, expect, test, vi } from 'vitest';
import { createVeilStore } from '../../ts/react/store.js';

describe('createVeilStore', () => {
  test('snapshots are frozen and stay the same object until a field changes', () => {
    const s = createVeilStore({ status: 'idle', n: 0 });
    const a = s.getSnapshot();
    expect(Object.isFrozen(a)).toBe(true);
    expect(s.getSnapshot()).toBe(a);
    const l = vi.fn();
    s.subscribe(l);
    s.set({ n: 0 });
    expect(s.getSnapshot()).toBe(a);
    expect(l).not.toHaveBeenCalled();
    s.set({ n: 1 });
    const b = s.getSnapshot();
    expect(b).not.toBe(a);
    expect(b).toEqual({ status: 'idle', n: 1 });
    expect(Object.isFrozen(b)).toBe(true);
    expect(l).toHaveBeenCalledTimes(1);
    s.set((c) => ({ n: c.n + 1 }));
    expect(s.getSnapshot().n).toBe(2);
  });

  test('the server snapshot is the initial one; reset returns to it; unsubscribe stops notifications', () => {
    const initial = { v: 'a' };
    const s = createVeilStore(initial);
    initial.v = 'mutated';
    const first = s.getServerSnapshot();
    expect(first).toEqual({ v: 'a' });
    const l = vi.fn();
    const off = s.subscribe(l);
    s.set({ v: 'b' });
    expect(s.getServerSnapshot()).toBe(first);
    s.reset();
    expect(s.getSnapshot()).toBe(first);
    expect(l).toHaveBeenCalledTimes(2);
    off();
    s.set({ v: 'c' });
    expect(l).toHaveBeenCalledTimes(2);
  });

  test('a throwing listener does not starve the others', () => {
    const s = createVeilStore({ v: 0 });
    const good = vi.fn();
    s.subscribe(() => {
      throw new Error('boom');
    });
    s.subscribe(good);
    s.set({ v: 1 });
    expect(good).toHaveBeenCalledTimes(1);
  });
});
