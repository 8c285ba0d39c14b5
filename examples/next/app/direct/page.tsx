import { DirectApp } from '../../components/DirectApp';

// A server component: static HTML around the client app. Nothing of veilkit runs on the server.
export default function Direct() {
  return (
    <main>
      <h1>veilkit on Next.js</h1>
      <p className="lede">
        End-to-end encrypted chat and file drop. This server stores public prekey bundles and relays
        ciphertext; keys and plaintext never leave your browser.
      </p>
      <DirectApp />
    </main>
  );
}
