import type { JSX } from 'preact';

/** Bookmarks (being built). */
export function Bookmarks(): JSX.Element {
  return <h1>Bookmarks</h1>;
}

/** Favourites (being built). */
export function Favourites(): JSX.Element {
  return <h1>Favourites</h1>;
}
