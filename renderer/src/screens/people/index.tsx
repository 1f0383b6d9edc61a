import type { JSX } from 'preact';

/** People (being built). */
export function People(_props: { tab?: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">People</h1>
    </section>
  );
}
