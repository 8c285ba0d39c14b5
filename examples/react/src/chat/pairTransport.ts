import type { ChatTransport } from 'veilkit/react';

/** One frame seen on the simulated wire (for the page's wire log). */
export interface WireFrame {
  readonly n: number;
  readonly from: string;
  readonly bytes: Uint8Array;
  readonly tampered: boolean;
}

/**
 * Two in-page transports wired to each other, standing in for a server: what one side sends, the
 * other receives (a copy, asynchronously, in order; frames sent before the other side subscribes
 * wait for it). `tamperNext(side)` flips one bit of that side's next frame in transit — its last
 * byte, inside the AEAD tag — so the receiver's decryption must fail. `inject(side, bytes)` hands
 * `side` a frame the relay made itself, as if it came from the other side.
 */
export function pairTransport(names: readonly [string, string], onFrame: (frame: WireFrame) => void) {
  type Side = { listeners: Set<(bytes: Uint8Array) => void>; queue: Uint8Array[]; tamper: boolean };
  const sides: [Side, Side] = [
    { listeners: new Set(), queue: [], tamper: false },
    { listeners: new Set(), queue: [], tamper: false },
  ];
  let n = 0;

  const deliver = (to: Side, bytes: Uint8Array) => {
    if (to.listeners.size === 0) { to.queue.push(bytes); return; }
    for (const l of to.listeners) l(bytes.slice());
  };

  const transport = (self: 0 | 1): ChatTransport => ({
    send(bytes: Uint8Array) {
      const from = sides[self];
      const copy = bytes.slice();
      const tampered = from.tamper && copy.length > 0;
      if (tampered) {
        copy[copy.length - 1] = (copy[copy.length - 1] ?? 0) ^ 0x01;
        from.tamper = false;
      }
      onFrame({ n: ++n, from: names[self], bytes: copy, tampered });
      setTimeout(() => { deliver(sides[self === 0 ? 1 : 0], copy); }, 0);
    },
    subscribe(onBytes: (bytes: Uint8Array) => void) {
      const me = sides[self];
      me.listeners.add(onBytes);
      const queued = me.queue.splice(0);
      if (queued.length > 0) setTimeout(() => { for (const b of queued) onBytes(b.slice()); }, 0);
      return () => { me.listeners.delete(onBytes); };
    },
  });

  return {
    a: transport(0),
    b: transport(1),
    tamperNext(side: 0 | 1, on = true) { sides[side].tamper = on; },
    inject(side: 0 | 1, bytes: Uint8Array) {
      const copy = bytes.slice();
      onFrame({ n: ++n, from: 'relay', bytes: copy, tampered: false });
      setTimeout(() => { deliver(sides[side], copy); }, 0);
    },
  };
}
