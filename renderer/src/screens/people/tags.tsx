import { useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { removeFromPaged, usePaged } from '../../components/account/usePaged';
import { toast } from '../../components/layout/toasts';
import { ListState } from './state';
import '../../components/account/account.css';

type Tag = mastodon.v1.Tag;
const KEY = ['followed-tags'];

/** The hashtags you follow (their posts come to your home timeline); "Unfollow" is optimistic. */
export function FollowedTags(): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const list = usePaged<Tag>(KEY, (a) => a.rest.v1.followedTags.list({ limit: 100 }), { pageSize: 100 });
  const unfollow = async (tag: Tag): Promise<void> => {
    const revert = removeFromPaged<Tag>(qc, KEY, (t) => t.name === tag.name);
    try {
      await api.rest.v1.tags.$select(tag.name).unfollow();
    } catch (error) {
      revert();
      toast(describeError(error), { retry: () => void unfollow(tag) });
    }
  };
  return (
    <section aria-labelledby="followed-title">
      <h2 id="followed-title">Followed hashtags</h2>
      <ListState isPending={list.isPending} error={list.error} empty={list.items.length === 0} emptyText="You follow no hashtags. Follow one from its timeline." retry={list.refetch} />
      <ul class="tag-list" aria-labelledby="followed-title">
        {list.items.map((t) => (
          <li key={t.name}>
            <a href={`/tags/${encodeURIComponent(t.name)}`}>#{t.name}</a>
            <button type="button" aria-label={`Unfollow #${t.name}`} onClick={() => void unfollow(t)}>
              Unfollow
            </button>
          </li>
        ))}
      </ul>
      {list.hasMore && list.items.length > 0 && (
        <button type="button" class="load-more" onClick={list.loadMore} disabled={list.loadingMore}>
          Load more
        </button>
      )}
    </section>
  );
}
