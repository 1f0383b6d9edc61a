import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { completeSignIn } from '../instance/oauth';

/** Where the instance's OAuth flow comes back: exchanges the code, then goes to where the person was going. */
export function Callback(): JSX.Element {
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    completeSignIn(location.search).then(
      (next) => location.replace(next),
      (e: unknown) => setError(e instanceof Error ? e.message : 'Signing in failed.'),
    );
  }, []);
  if (error)
    return (
      <section class="centered" aria-labelledby="callback-title">
        <h1 id="callback-title">Signing in failed</h1>
        <p role="alert">{error}</p>
        <a href="/" class="button">
          Back
        </a>
      </section>
    );
  return (
    <p class="centered" role="status">
      Signing in…
    </p>
  );
}
