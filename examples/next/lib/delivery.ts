// The group delivery service of the rooms app (veilkit/server: ts/group/delivery.ts): one in-memory store per
// server process, kept on globalThis because Next bundles each route handler separately. When
// VEILKIT_NEXT_DS_STORE names a file, the whole store is written there after every change (bytes as hex):
// the tests read it to check that the server holds no plaintext and no key.
import { writeFileSync, renameSync } from 'node:fs';
import { DeliveryService, deliveryHandler, memoryDeliveryStore, type MemoryDeliveryState } from 'veilkit/server';

interface Delivery {
  state: MemoryDeliveryState;
  handler: (request: Request) => Promise<Response>;
}

const KEY = Symbol.for('veilkit-example-next.delivery');
const holder = globalThis as typeof globalThis & { [KEY]?: Delivery };

function delivery(): Delivery {
  let d = holder[KEY];
  if (!d) {
    const store = memoryDeliveryStore();
    d = { state: store.state, handler: deliveryHandler(new DeliveryService(store), '/api/ds') };
    holder[KEY] = d;
  }
  return d;
}

function mirror(state: MemoryDeliveryState): void {
  const file = process.env.VEILKIT_NEXT_DS_STORE;
  if (!file) return;
  const json = JSON.stringify(state, (_k, v: unknown) => (v instanceof Uint8Array ? { hex: Buffer.from(v).toString('hex') } : v), 2);
  writeFileSync(`${file}.tmp`, json);
  renameSync(`${file}.tmp`, file);
}

/** Serves one request of the delivery service's routes (docs/GROUPS.md#delivery-service-http). */
export async function handleDelivery(request: Request): Promise<Response> {
  const d = delivery();
  const response = await d.handler(request);
  if (request.method !== 'GET') mirror(d.state);
  return response;
}
