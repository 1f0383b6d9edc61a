import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { AccountRow } from '../../components/account/CompactAccountRow';
import { QueryState } from '../../components/layout/section';

/** A list's members (remove) and a search among the accounts you follow (add). */
export function Members(props: { list: mastodon.v1.List }): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const l = props.list;
  const key = ['lists', l.id, 'accounts'];
  const members = useQuery({ queryKey: key, queryFn: async () => await api.rest.v1.lists.$select(l.id).accounts.list({ limit: 0 }) });
  const [q, setQ] = useState('');
  const [submitted, setSubmitted] = useState('');
  const found = useQuery({
    queryKey: ['lists', 'search', submitted],
    queryFn: async () => await api.rest.v1.accounts.search.list({ q: submitted, following: true, resolve: false, limit: 10 }),
    enabled: submitted.length > 0,
  });
  const change = useMutation({
    mutationFn: ({ account, add }: { account: mastodon.v1.Account; add: boolean }) =>
      add ? api.rest.v1.lists.$select(l.id).accounts.create({ accountIds: [account.id] }) : api.rest.v1.lists.$select(l.id).accounts.remove({ accountIds: [account.id] }),
    onMutate: async ({ account, add }) => {
      await client.cancelQueries({ queryKey: key });
      const before = client.getQueryData<mastodon.v1.Account[]>(key);
      client.setQueryData<mastodon.v1.Account[]>(key, (old) => (add ? [...(old ?? []).filter((a) => a.id !== account.id), account] : old?.filter((a) => a.id !== account.id)));
      return { before };
    },
    onError: (error, vars, context) => {
      client.setQueryData(key, context?.before);
      toast(`${vars.add ? 'Adding' : 'Removing'} @${vars.account.acct} failed: ${describeError(error)}`, { retry: () => change.mutate(vars) });
    },
  });
  const memberIds = new Set((members.data ?? []).map((a) => a.id));
  return (
    <div>
      <h3>Members of {l.title}</h3>
      <QueryState query={members} label="members">
        {() =>
          members.data?.length ? (
            <ul class="rows" aria-label={`Members of ${l.title}`}>
              {members.data.map((a) => (
                <AccountRow key={a.id} account={a}>
                  <button type="button" aria-label={`Remove @${a.acct} from ${l.title}`} onClick={() => change.mutate({ account: a, add: false })}>
                    Remove
                  </button>
                </AccountRow>
              ))}
            </ul>
          ) : (
            <p>Nobody is in this list yet.</p>
          )
        }
      </QueryState>
      <form
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setSubmitted(q.trim());
        }}
      >
        <label for={`list-${l.id}-search`}>Find people you follow to add to {l.title}</label>
        <input id={`list-${l.id}-search`} type="search" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit">Search</button>
        </div>
      </form>
      {submitted && (
        <QueryState query={found} label="accounts">
          {() =>
            found.data?.length ? (
              <ul class="rows" aria-label={`People to add to ${l.title}`}>
                {found.data.map((a) => (
                  <AccountRow key={a.id} account={a}>
                    {memberIds.has(a.id) ? (
                      <span class="hint">In the list</span>
                    ) : (
                      <button type="button" aria-label={`Add @${a.acct} to ${l.title}`} onClick={() => change.mutate({ account: a, add: true })}>
                        Add
                      </button>
                    )}
                  </AccountRow>
                ))}
              </ul>
            ) : (
              <p>Nobody you follow matches “{submitted}”.</p>
            )
          }
        </QueryState>
      )}
    </div>
  );
}
