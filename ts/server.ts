/**
 * `veilkit/server`: what a server of a veilkit app runs, with no wasm, no workers and no keys — the group
 * delivery service (docs/GROUPS.md#delivery-service) and what it reads of MLS messages. Safe to import in a
 * Next.js route handler, Node, Deno or Bun (WebCrypto's SHA-256 is all it needs).
 */
export {
  DeliveryService, memoryDeliveryStore, deliveryHandler, DELIVERY_NAME, DELIVERY_LIMITS, LINK_LIMITS,
  type DeliveryStore, type DeliveryEntry, type DeliveryPost, type DeliveryEvent, type MailboxEntry, type MemoryDeliveryState,
} from './group/delivery.js';
export { GroupLog, type GroupLogEntry, type GroupLogPost } from './group/log.js';
export { inspectGroupMessage, type GroupWireInfo } from './group/wire.js';
export { VeilError, type VeilErrorCode } from '../protocol/errors.js';
