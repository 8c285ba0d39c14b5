import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './globals.css';

export const metadata: Metadata = {
  title: 'veilkit — Next.js example',
  description: 'End-to-end encrypted chat and file drop on veilkit, with a Next.js server that only sees ciphertext',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>{children}</body>
    </html>
  );
}
