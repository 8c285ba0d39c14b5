import { RoomsApp } from '../components/RoomsApp';

// A server component: static HTML around the client app. Nothing of veilkit runs on the server.
export default function Home() {
  return (
    <main>
      <h1>veilkit rooms on Next.js</h1>
      <p className="lede">
        End-to-end encrypted group chat (MLS with a post-quantum suite). This server keeps key packages and
        orders ciphertext; keys and plaintext never leave your browsers. <a href="/direct">One-to-one chat and file drop</a>.
      </p>
      <RoomsApp />
    </main>
  );
}
