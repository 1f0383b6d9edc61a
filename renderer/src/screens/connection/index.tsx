import type { JSX } from 'preact';

/** Connection (being built). */
export function Connection(_props: Record<string, unknown>): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Connection</h1>
    </section>
  );
}
