// The group delivery service (lib/delivery.ts): key package directory, device mailboxes, one ordered log per
// room, device registry records, server-sent events. Ciphertext and public metadata only.
import { handleDelivery } from '../../../../lib/delivery';

export const dynamic = 'force-dynamic';

export const GET = handleDelivery;
export const POST = handleDelivery;
export const PUT = handleDelivery;
