import type { JSX } from 'preact';

/** Notifications (being built). */
export function Notifications(_props: { tab?: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Notifications</h1>
    </section>
  );
}
