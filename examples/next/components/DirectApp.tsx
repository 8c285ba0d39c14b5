'use client';
// The whole client side: one VeilProvider (a worker pool for files and the keystore "veilkit-next",
// both created in an effect after hydration) around the chat and the file drop.
import { VeilProvider } from 'veilkit/react';
import { Chat } from './Chat';
import { FileDrop } from './FileDrop';

export function DirectApp() {
  return (
    <VeilProvider keystore="veilkit-next" pool={{ workers: 2 }}>
      <div className="grid">
        <Chat />
        <FileDrop />
      </div>
    </VeilProvider>
  );
}
