import type { JSX } from 'preact';

/** Administration (being built). */
export function Admin(_props: { section?: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Administration</h1>
    </section>
  );
}
