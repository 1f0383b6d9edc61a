import type { JSX } from 'preact';
import { Timeline } from '../../components/timeline/Timeline';

/** The posts the person bookmarked, newest bookmark first (paged by the Link headers). */
export function Bookmarks(): JSX.Element {
  return (
    <section aria-labelledby="bookmarks-title">
      <h1 id="bookmarks-title">Bookmarks</h1>
      <Timeline
        label="Bookmarks"
        queryKey={['timeline', 'bookmarks']}
        paginate={(api) => api.rest.v1.bookmarks.list({ limit: 20 })}
        context="account"
        empty="You have not bookmarked any posts yet."
      />
    </section>
  );
}

/** The posts the person favourited, newest favourite first (paged by the Link headers). */
export function Favourites(): JSX.Element {
  return (
    <section aria-labelledby="favourites-title">
      <h1 id="favourites-title">Favourites</h1>
      <Timeline
        label="Favourites"
        queryKey={['timeline', 'favourites']}
        paginate={(api) => api.rest.v1.favourites.list({ limit: 20 })}
        context="account"
        empty="You have not favourited any posts yet."
      />
    </section>
  );
}
