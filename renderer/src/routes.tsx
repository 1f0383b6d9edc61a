import type { JSX } from 'preact';
import { lazy, Route, Router } from 'preact-iso';
import { Callback } from './screens/callback';
import { NotFound } from './screens/not-found';
// The first screen is in the main chunk: opening the app costs no second round of fetches.
import { Home } from './screens/timelines/home';

/*
 * The route table. Each screen is its own chunk, loaded when first visited, so the first screen
 * carries only what it needs. Literal paths come first: preact-iso takes the first match.
 * Accounts and threads live at /@acct and /@acct/:id, as on Mastodon's web UI.
 */

const Local = lazy(() => import('./screens/timelines/public').then((m) => m.Local));
const Federated = lazy(() => import('./screens/timelines/public').then((m) => m.Federated));
const Hashtag = lazy(() => import('./screens/timelines/hashtag').then((m) => m.Hashtag));
const ListTimeline = lazy(() => import('./screens/timelines/list').then((m) => m.ListTimeline));
const Bookmarks = lazy(() => import('./screens/timelines/saved').then((m) => m.Bookmarks));
const Favourites = lazy(() => import('./screens/timelines/saved').then((m) => m.Favourites));
const Thread = lazy(() => import('./screens/thread').then((m) => m.Thread));
const Explore = lazy(() => import('./screens/explore').then((m) => m.Explore));
const Profile = lazy(() => import('./screens/profile').then((m) => m.Profile));
const Notifications = lazy(() => import('./screens/notifications').then((m) => m.Notifications));
const Search = lazy(() => import('./screens/search').then((m) => m.Search));
const People = lazy(() => import('./screens/people').then((m) => m.People));
const Compose = lazy(() => import('./screens/compose').then((m) => m.ComposeScreen));
const Scheduled = lazy(() => import('./screens/scheduled').then((m) => m.Scheduled));
const Lists = lazy(() => import('./screens/lists').then((m) => m.Lists));
const Settings = lazy(() => import('./screens/settings').then((m) => m.Settings));
const Admin = lazy(() => import('./screens/admin').then((m) => m.Admin));
const Welcome = lazy(() => import('./screens/welcome').then((m) => m.Welcome));
const Connection = lazy(() => import('./screens/connection').then((m) => m.Connection));
const OpenLink = lazy(() => import('./screens/open').then((m) => m.OpenLink));

/** `/@acct` is a profile, `/@acct/:id` a thread; anything else without a route is not found. */
function AccountOrThread(props: { handle?: string; id?: string }): JSX.Element {
  const handle = props.handle ?? '';
  if (!handle.startsWith('@') || handle.length < 2) return <NotFound />;
  const acct = handle.slice(1);
  if (props.id) return <Thread acct={acct} id={props.id} />;
  return <Profile acct={acct} />;
}

/** The screens of a signed-in person. */
export function SignedInRoutes(): JSX.Element {
  return (
    <Router>
      <Route path="/" component={Home} />
      <Route path="/callback" component={Callback} />
      <Route path="/public/local" component={Local} />
      <Route path="/public" component={Federated} />
      <Route path="/tags/:tag" component={Hashtag} />
      <Route path="/lists/:id" component={ListTimeline} />
      <Route path="/lists" component={Lists} />
      <Route path="/bookmarks" component={Bookmarks} />
      <Route path="/favourites" component={Favourites} />
      <Route path="/explore/:tab?" component={Explore} />
      <Route path="/notifications/:tab?" component={Notifications} />
      <Route path="/search" component={Search} />
      <Route path="/people/:tab?" component={People} />
      <Route path="/compose" component={Compose} />
      <Route path="/scheduled" component={Scheduled} />
      <Route path="/settings/:section*" component={Settings} />
      <Route path="/admin/:section*" component={Admin} />
      <Route path="/connection" component={Connection} />
      <Route path="/open" component={OpenLink} />
      <Route path="/:handle/:id?" component={AccountOrThread} />
      <Route default component={NotFound} />
    </Router>
  );
}

/** Signed out: the first run (no owner yet), sign in, sign up, and the OAuth callback. */
export function SignedOutRoutes(): JSX.Element {
  return (
    <Router>
      <Route path="/callback" component={Callback} />
      <Route default component={Welcome} />
    </Router>
  );
}
