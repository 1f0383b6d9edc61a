import type { JSX } from 'preact';

/** New post (being built). */
export function ComposeScreen(_props: Record<string, unknown>): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">New post</h1>
    </section>
  );
}
