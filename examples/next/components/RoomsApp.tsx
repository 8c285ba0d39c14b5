'use client';
// The rooms app: one VeilProvider (the keystore "veilkit-next", shared with /direct, and a worker pool,
// both created in an effect after hydration) with the app's delivery service (app/api/ds) for the group hooks.
import { useState } from 'react';
import { httpDelivery } from 'veilkit';
import { VeilProvider } from 'veilkit/react';
import { Rooms } from './Rooms';

export function RoomsApp() {
  // A plain object: no request and no EventSource until a hook subscribes (after hydration).
  const [delivery] = useState(() => httpDelivery('/api/ds'));
  return (
    <VeilProvider keystore="veilkit-next" pool={{ workers: 2 }} delivery={delivery}>
      <Rooms />
    </VeilProvider>
  );
}
