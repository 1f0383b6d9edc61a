import type { JSX } from 'preact';

/** Scheduled posts (being built). */
export function Scheduled(_props: Record<string, unknown>): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Scheduled posts</h1>
    </section>
  );
}
