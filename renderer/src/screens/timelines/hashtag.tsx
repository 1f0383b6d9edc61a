import type { JSX } from 'preact';

/** Hashtag (being built). */
export function Hashtag(_props: { tag?: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Hashtag</h1>
    </section>
  );
}
