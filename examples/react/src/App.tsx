import { useEffect, useState } from 'react';
import { VeilProvider, useVeil } from 'veilkit/react';
import { FileDrop } from './files/FileDrop';
import { Keys } from './keys/Keys';
import { Chat } from './chat/Chat';
import { ChatTab } from './chat/ChatTab';
import { describeError } from './util';

type Screen = 'files' | 'keys' | 'chat' | 'chat-tab';
const SCREENS: ReadonlyArray<{ id: Screen; title: string }> = [
  { id: 'files', title: 'File drop' },
  { id: 'keys', title: 'Keys' },
  { id: 'chat', title: 'Chat' },
  { id: 'chat-tab', title: 'Chat across tabs' },
];

function screenOf(hash: string): Screen {
  const id = hash.replace(/^#\/?/, '').split('?')[0];
  return SCREENS.find((s) => s.id === id)?.id ?? 'files';
}

function useScreen(): Screen {
  const [screen, setScreen] = useState(() => screenOf(location.hash));
  useEffect(() => {
    const on = () => { setScreen(screenOf(location.hash)); };
    addEventListener('hashchange', on);
    return () => { removeEventListener('hashchange', on); };
  }, []);
  return screen;
}

/** What the provider loaded: the wasm build (threads needs COOP/COEP) or why it failed. */
function Status() {
  const { status, capabilities, error } = useVeil();
  if (status === 'error') return <span className="badge error" data-testid="veil-status">veilkit failed: {describeError(error)}</span>;
  if (status !== 'success' || capabilities === undefined) return <span className="badge" data-testid="veil-status">loading…</span>;
  return (
    <span className="badge ok" data-testid="veil-status" data-build={capabilities.wasmBuild}>
      page: {capabilities.wasmBuild} wasm
      {capabilities.crossOriginIsolated ? ' · cross-origin isolated (workers may use threads)' : ' · not cross-origin isolated (SIMD everywhere)'}
    </span>
  );
}

export function App() {
  const screen = useScreen();
  return (
    // The file drop and the keys page share one keystore ("veilkit-demo") and one pool of two
    // workers; each chat pane opens its own keystore (see chat/Chat.tsx).
    <VeilProvider keystore="veilkit-demo" pool={{ workers: 2 }}>
      <header>
        <h1>veilkit <small>React example</small></h1>
        <nav>
          {SCREENS.map((s) => (
            <a key={s.id} href={`#${s.id}`} aria-current={screen === s.id ? 'page' : undefined}>{s.title}</a>
          ))}
        </nav>
        <Status />
      </header>
      <main>
        {screen === 'files' && <FileDrop />}
        {screen === 'keys' && <Keys />}
        {screen === 'chat' && <Chat />}
        {screen === 'chat-tab' && <ChatTab />}
      </main>
    </VeilProvider>
  );
}
