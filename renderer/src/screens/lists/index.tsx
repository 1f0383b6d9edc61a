import type { JSX } from 'preact';

/** Lists (being built). */
export function Lists(_props: Record<string, unknown>): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Lists</h1>
    </section>
  );
}
