import type { JSX } from 'preact';

/** A path the app has no screen for. */
export function NotFound(): JSX.Element {
  return (
    <section aria-labelledby="not-found-title">
      <h1 id="not-found-title">Not found</h1>
      <p>
        There is nothing here. <a href="/">Go to your home timeline</a>.
      </p>
    </section>
  );
}
