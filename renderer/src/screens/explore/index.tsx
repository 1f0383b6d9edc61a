import type { JSX } from 'preact';

/** Explore (being built). */
export function Explore(_props: { tab?: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Explore</h1>
    </section>
  );
}
