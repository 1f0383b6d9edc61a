import type { JSX } from 'preact';

/** Search (being built). */
export function Search(_props: { query?: Record<string, string> }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Search</h1>
    </section>
  );
}
