import type { JSX } from 'preact';

/** List (being built). */
export function ListTimeline(_props: { id?: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">List</h1>
    </section>
  );
}
