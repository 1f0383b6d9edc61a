import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi, type Api } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { AccountRow } from '../../components/account/AccountRow';
import { usePaged } from '../../components/account/usePaged';
import { StatusView, profilePath } from '../../components/status/Status';
import { Timeline } from '../../components/timeline/Timeline';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

type Account = mastodon.v1.Account;

/** The sections of a profile, each behind `?tab=`. */
export const PROFILE_TABS = [
  { id: 'posts', label: 'Posts' },
  { id: 'replies', label: 'Posts and replies' },
  { id: 'media', label: 'Media' },
  { id: 'following', label: 'Following' },
  { id: 'followers', label: 'Followers' },
  { id: 'hashtags', label: 'Hashtags' },
] as const;

/** The tab links (`aria-current` on the open one). */
export function ProfileTabs(props: { account: Account; tab: string }): JSX.Element {
  return (
    <nav aria-label="Profile sections" class="tabs">
      <ul>
        {PROFILE_TABS.map((t) => (
          <li key={t.id}>
            <a href={t.id === 'posts' ? profilePath(props.account) : `${profilePath(props.account)}?tab=${t.id}`} aria-current={props.tab === t.id ? 'page' : undefined}>
              {t.label}
            </a>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** The open section of a profile. */
export function ProfileSection(props: { account: Account; tab: string }): JSX.Element {
  const { account, tab } = props;
  if (tab === 'following' || tab === 'followers') return <AccountList account={account} which={tab} />;
  if (tab === 'hashtags') return <FeaturedTags account={account} />;
  if (tab === 'replies') return <Timeline key="replies" label="Posts and replies" queryKey={['account-statuses', account.id, 'replies']} fetchPage={(api, maxId) => page(api, account.id, { maxId })} empty="No posts yet." />;
  if (tab === 'media') return <Timeline key="media" label="Media" queryKey={['account-statuses', account.id, 'media']} fetchPage={(api, maxId) => page(api, account.id, { maxId, onlyMedia: true })} empty="No media yet." />;
  return (
    <>
      <Pinned account={account} />
      <Timeline key="posts" label="Posts" queryKey={['account-statuses', account.id, 'posts']} fetchPage={(api, maxId) => page(api, account.id, { maxId, excludeReplies: true })} empty="No posts yet." />
    </>
  );
}

function page(api: Api, id: string, params: { maxId?: string | undefined; onlyMedia?: boolean; excludeReplies?: boolean }): PromiseLike<mastodon.v1.Status[]> {
  return api.rest.v1.accounts.$select(id).statuses.list({ limit: 20, ...params, maxId: params.maxId ?? null });
}

/** Pinned posts, shown before the rest. */
function Pinned(props: { account: Account }): JSX.Element | null {
  const api = useApi();
  const pinned = useQuery({ queryKey: ['account-statuses', props.account.id, 'pinned'], queryFn: async () => await api.rest.v1.accounts.$select(props.account.id).statuses.list({ pinned: true }) });
  if (pinned.error)
    return (
      <ErrorRetry error={pinned.error} onRetry={() => pinned.refetch()} />
    );
  if (!pinned.data || pinned.data.length === 0) return null;
  return (
    <div role="feed" aria-label="Pinned posts" class="pinned-feed">
      {pinned.data.map((s, i) => (
        <StatusView key={s.id} status={s} posinset={i + 1} setsize={pinned.data.length} />
      ))}
    </div>
  );
}

/** Followers or following, 40 at a time. */
function AccountList(props: { account: Account; which: 'followers' | 'following' }): JSX.Element {
  const { account, which } = props;
  const list = usePaged<Account>(['account-list', account.id, which], (api) => api.rest.v1.accounts.$select(account.id)[which].list({ limit: 40 }), { pageSize: 40 });
  const label = which === 'followers' ? 'Followers' : 'Following';
  return (
    <section aria-label={label}>
      {list.isPending && (
        <p class="loading" role="status">
          Loading…
        </p>
      )}
      {list.error !== null && (
        <div class="error" role="alert">
          <p>{describeError(list.error)}</p>
          <button type="button" onClick={list.refetch}>
            Try again
          </button>
        </div>
      )}
      {!list.isPending && list.items.length === 0 && !list.error && <p class="empty">{which === 'followers' ? 'No followers yet.' : 'Not following anyone yet.'}</p>}
      <ul class="account-list" aria-label={label}>
        {list.items.map((a) => (
          <AccountRow key={a.id} account={a} />
        ))}
      </ul>
      {list.hasMore && list.items.length > 0 && (
        <button type="button" class="load-more" onClick={list.loadMore} disabled={list.loadingMore}>
          {list.loadingMore ? 'Loading…' : 'Load more'}
        </button>
      )}
    </section>
  );
}

/** The hashtags the account features on its profile. */
function FeaturedTags(props: { account: Account }): JSX.Element {
  const api = useApi();
  const tags = useQuery({ queryKey: ['featured-tags', props.account.id], queryFn: async () => await api.rest.v1.accounts.$select(props.account.id).featuredTags.list() });
  if (tags.isPending)
    return (
      <p class="loading" role="status">
        Loading…
      </p>
    );
  if (tags.error)
    return (
      <ErrorRetry error={tags.error} onRetry={() => tags.refetch()} />
    );
  if (tags.data.length === 0) return <p class="empty">No featured hashtags.</p>;
  return (
    <ul class="tag-list" aria-label="Featured hashtags">
      {tags.data.map((t) => (
        <li key={t.id}>
          <a href={`/tags/${encodeURIComponent(t.name)}`}>#{t.name}</a> <span class="muted">{t.statusesCount} posts</span>
        </li>
      ))}
    </ul>
  );
}
