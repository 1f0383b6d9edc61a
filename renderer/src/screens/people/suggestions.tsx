import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { AccountRow } from '../../components/account/AccountRow';
import { toast } from '../../components/layout/toasts';
import { ListState } from './state';

type Suggestion = mastodon.v1.Suggestion;
const KEY = ['suggestions'];

/** Accounts the instance suggests following; "Dismiss" removes one for good (optimistic). */
export function Suggestions(): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const query = useQuery({ queryKey: KEY, queryFn: async () => await api.rest.v2.suggestions.list({ limit: 40 }) });
  const dismiss = async (id: string): Promise<void> => {
    const before = qc.getQueryData<Suggestion[]>(KEY);
    qc.setQueryData<Suggestion[]>(KEY, before?.filter((s) => s.account.id !== id));
    try {
      await api.fetchJson(`/api/v1/suggestions/${encodeURIComponent(id)}`, { method: 'DELETE' });
    } catch (error) {
      qc.setQueryData(KEY, before);
      toast(describeError(error), { retry: () => void dismiss(id) });
    }
  };
  return (
    <section aria-labelledby="suggestions-title">
      <h2 id="suggestions-title">Who to follow</h2>
      <ListState isPending={query.isPending} error={query.error} empty={query.data?.length === 0} emptyText="No suggestions right now." retry={() => void query.refetch()} />
      <ul class="account-list" aria-labelledby="suggestions-title">
        {query.data?.map((s) => (
          <AccountRow key={s.account.id} account={s.account}>
            <button type="button" aria-label={`Dismiss @${s.account.acct}`} onClick={() => void dismiss(s.account.id)}>
              Dismiss
            </button>
          </AccountRow>
        ))}
      </ul>
    </section>
  );
}
