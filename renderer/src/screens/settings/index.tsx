import type { JSX } from 'preact';

/** Settings (being built). */
export function Settings(_props: { section?: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Settings</h1>
    </section>
  );
}
