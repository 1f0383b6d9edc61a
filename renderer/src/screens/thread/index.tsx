import type { JSX } from 'preact';

/** Thread (being built). */
export function Thread(_props: { acct: string; id: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Thread</h1>
    </section>
  );
}
