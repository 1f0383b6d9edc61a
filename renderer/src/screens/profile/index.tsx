import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useLocation } from 'preact-iso';
import { useApi, type Api } from '../../instance/client';
import { statusOf } from '../../instance/errors';
import { ProfileActions } from './actions';
import { ProfileHeader } from './header';
import { PROFILE_TABS, ProfileSection, ProfileTabs } from './tabs';
import './profile.css';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

type Account = mastodon.v1.Account;

/**
 * Finds an account by its handle: this instance's lookup first; a remote handle it does not know
 * yet is then resolved through search (`resolve=true`), which fetches it from its server.
 */
export async function resolveAccount(api: Api, acct: string): Promise<Account> {
  try {
    return await api.rest.v1.accounts.lookup({ acct });
  } catch (error) {
    if (statusOf(error) !== 404 || !acct.includes('@')) throw error;
  }
  const found = await api.rest.v2.search.list({ q: `@${acct}`, type: 'accounts', resolve: true, limit: 5 });
  const match = found.accounts.find((a) => a.acct.toLowerCase() === acct.toLowerCase()) ?? found.accounts[0];
  if (!match) throw Object.assign(new Error('No such account'), { statusCode: 404 });
  return match;
}

/**
 * A profile at `/@acct` (`?tab=` picks the section; `?report=STATUS_ID` opens the report dialog
 * with that post ticked): the header, what you can do with the account (or "Edit profile" on
 * your own), and its posts, replies, media, followers, following and featured hashtags.
 */
export function Profile(props: { acct: string }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const { query } = useLocation();
  const acct = decodeURIComponent(props.acct);
  const account = useQuery({
    queryKey: ['account-by-acct', acct.toLowerCase()],
    queryFn: async () => {
      const found = await resolveAccount(api, acct);
      qc.setQueryData(['account', found.id], found);
      return found;
    },
  });
  if (account.isPending)
    return (
      <section aria-labelledby="screen-title">
        <h1 id="screen-title">@{acct}</h1>
        <p class="loading" role="status">
          Loading…
        </p>
      </section>
    );
  if (account.error)
    return (
      <section aria-labelledby="screen-title">
        <h1 id="screen-title">@{acct}</h1>
        <ErrorRetry error={account.error} onRetry={() => account.refetch()} />
      </section>
    );
  const a = account.data;
  const own = a.id === api.account.id;
  const tab = PROFILE_TABS.some((t) => t.id === query.tab) ? (query.tab ?? 'posts') : 'posts';
  return (
    <section aria-labelledby="screen-title" class="profile">
      <ProfileHeader account={a} />
      {own ? (
        <p>
          <a class="button" href="/settings/profile">
            Edit profile
          </a>
        </p>
      ) : (
        <ProfileActions account={a} reportStatusId={query.report} />
      )}
      <ProfileTabs account={a} tab={tab} />
      <ProfileSection key={`${a.id}-${tab}`} account={a} tab={tab} />
    </section>
  );
}
