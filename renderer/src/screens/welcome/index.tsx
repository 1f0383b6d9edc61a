import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { beginSignIn } from '../../api/oauth';

/** Signed out: sign in through the instance (first run and sign-up are being built). */
export function Welcome(): JSX.Element {
  const [busy, setBusy] = useState(false);
  return (
    <main class="centered" id="content">
      <h1>Welcome to Hearth</h1>
      <button
        type="button"
        disabled={busy}
        onClick={() => {
          setBusy(true);
          void beginSignIn().catch(() => setBusy(false));
        }}
      >
        Sign in
      </button>
    </main>
  );
}
