import { useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { AccountRow } from '../../components/account/AccountRow';
import { relationshipKey } from '../../components/account/relationship';
import { removeFromPaged, usePaged } from '../../components/account/usePaged';
import { toast } from '../../components/layout/toasts';
import { ListState } from './state';

type Account = mastodon.v1.Account;
const KEY = ['follow-requests', 'list'];

/** People asking to follow your locked account: Accept or Reject each (optimistic). */
export function FollowRequests(): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const list = usePaged<Account>(KEY, (a) => a.rest.v1.followRequests.list({ limit: 40 }), { pageSize: 40 });
  const answer = async (account: Account, accept: boolean): Promise<void> => {
    const revert = removeFromPaged<Account>(qc, KEY, (a) => a.id === account.id);
    try {
      const rel = accept ? await api.rest.v1.followRequests.$select(account.id).authorize() : await api.rest.v1.followRequests.$select(account.id).reject();
      qc.setQueryData(relationshipKey(account.id), rel);
      void qc.invalidateQueries({ queryKey: ['follow-requests', 'count'] });
      toast(accept ? `@${account.acct} now follows you.` : `Request from @${account.acct} rejected.`, { kind: 'info' });
    } catch (error) {
      revert();
      toast(describeError(error), { retry: () => void answer(account, accept) });
    }
  };
  return (
    <section aria-labelledby="requests-title">
      <h2 id="requests-title">Follow requests</h2>
      <ListState isPending={list.isPending} error={list.error} empty={list.items.length === 0} emptyText="No one is waiting for an answer." retry={list.refetch} />
      <ul class="account-list" aria-labelledby="requests-title">
        {list.items.map((a) => (
          <AccountRow key={a.id} account={a} noFollow>
            <button type="button" class="primary" aria-label={`Accept @${a.acct}`} onClick={() => void answer(a, true)}>
              Accept
            </button>
            <button type="button" aria-label={`Reject @${a.acct}`} onClick={() => void answer(a, false)}>
              Reject
            </button>
          </AccountRow>
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
