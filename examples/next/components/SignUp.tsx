'use client';
// Sign up: a name becomes an identity in this browser's keystore (`useIdentity().create`, ML-DSA-65 on):
// shared by the rooms and the one-to-one chat. With `onLink` (the rooms), a second button makes this browser's
// identity a new device of an existing user instead: the rooms then show a code to type on the user's first device.
import { useState, type FormEvent } from 'react';
import { useIdentity } from 'veilkit/react';
import { describe } from './errors';

export const USER_NAME = /^[a-z0-9_-]{1,32}$/;

export function SignUp({ onLink }: { onLink?: (name: string) => void } = {}) {
  const id = useIdentity();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | undefined>(undefined);

  async function signUp(event: FormEvent, link = false) {
    event.preventDefault();
    const user = name.trim().toLowerCase();
    if (!USER_NAME.test(user)) {
      setProblem('a name is 1 to 32 of a-z 0-9 _ -');
      return;
    }
    setBusy(true);
    setProblem(undefined);
    try {
      // Told before the identity exists: the rooms must not set it up as a new user meanwhile.
      if (link) onLink?.(user);
      await id.create({ label: user });
    } catch (e) {
      setProblem(describe(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      {problem !== undefined && <p className="error">{problem}</p>}
      <form className="row" onSubmit={(e) => void signUp(e)}>
        <input type="text" aria-label="your name" placeholder="your name (a-z 0-9)" value={name} onChange={(e) => setName(e.target.value)} />
        <button type="submit" disabled={busy}>{busy ? 'Creating keys…' : 'Create identity'}</button>
        {onLink !== undefined && (
          <button type="button" className="secondary" disabled={busy} onClick={(e) => void signUp(e, true)}>Link to my account</button>
        )}
      </form>
    </>
  );
}
