import type { JSX } from 'preact';

/** Profile (being built). */
export function Profile(_props: { acct: string }): JSX.Element {
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">Profile</h1>
    </section>
  );
}
