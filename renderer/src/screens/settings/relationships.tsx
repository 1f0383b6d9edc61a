import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { AccountRow } from '../../components/account/CompactAccountRow';
import { QueryState, Section } from '../../components/layout/section';

/**
 * A list that loses a row when its action succeeds: removed at once, put back with a toast (and
 * Retry) when the instance refuses.
 */
function useRemoval<T>(key: unknown[], run: (item: T) => Promise<unknown>, same: (a: T, b: T) => boolean, what: (item: T) => string) {
  const client = useQueryClient();
  const mutation = useMutation({
    mutationFn: run,
    onMutate: async (item: T) => {
      await client.cancelQueries({ queryKey: key });
      const before = client.getQueryData<T[]>(key);
      client.setQueryData<T[]>(key, (old) => old?.filter((x) => !same(x, item)));
      return { before };
    },
    onError: (error, item, context) => {
      client.setQueryData(key, context?.before);
      toast(`${what(item)} failed: ${describeError(error)}`, { retry: () => mutation.mutate(item) });
    },
  });
  return mutation;
}

function AccountList(props: { title: string; kind: 'mutes' | 'blocks'; action: string }): JSX.Element {
  const api = useApi();
  const key = ['settings', props.kind];
  const query = useQuery({ queryKey: key, queryFn: async () => await (props.kind === 'mutes' ? api.rest.v1.mutes.list({ limit: 80 }) : api.rest.v1.blocks.list({ limit: 80 })) });
  const undo = useRemoval<mastodon.v1.Account>(
    key,
    (a) => (props.kind === 'mutes' ? api.rest.v1.accounts.$select(a.id).unmute() : api.rest.v1.accounts.$select(a.id).unblock()),
    (a, b) => a.id === b.id,
    (a) => `${props.action} @${a.acct}`,
  );
  return (
    <Section title={props.title}>
      <QueryState query={query} label={props.title.toLowerCase()}>
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label={props.title}>
              {query.data.map((a) => (
                <AccountRow key={a.id} account={a}>
                  <button type="button" aria-label={`${props.action} @${a.acct}`} onClick={() => undo.mutate(a)}>
                    {props.action}
                  </button>
                </AccountRow>
              ))}
            </ul>
          ) : (
            <p>Nobody here.</p>
          )
        }
      </QueryState>
    </Section>
  );
}

/** Settings > Muted accounts, each with Unmute. */
export function MutedAccounts(): JSX.Element {
  return <AccountList title="Muted accounts" kind="mutes" action="Unmute" />;
}

/** Settings > Blocked accounts, each with Unblock. */
export function BlockedAccounts(): JSX.Element {
  return <AccountList title="Blocked accounts" kind="blocks" action="Unblock" />;
}

/** Settings > Blocked domains, each with Unblock. */
export function BlockedDomains(): JSX.Element {
  const api = useApi();
  const key = ['settings', 'domain_blocks'];
  const query = useQuery({ queryKey: key, queryFn: async () => await api.rest.v1.domainBlocks.list({ limit: 200 }) });
  const undo = useRemoval<string>(key, (domain) => api.rest.v1.domainBlocks.remove({ domain }), (a, b) => a === b, (d) => `Unblocking ${d}`);
  return (
    <Section title="Blocked domains">
      <p class="hint">You see nothing from these servers, and their accounts cannot follow you.</p>
      <QueryState query={query} label="blocked domains">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Blocked domains">
              {query.data.map((d) => (
                <li key={d}>
                  <span class="grow">{d}</span>
                  <button type="button" aria-label={`Unblock ${d}`} onClick={() => undo.mutate(d)}>
                    Unblock
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No domains are blocked.</p>
          )
        }
      </QueryState>
    </Section>
  );
}
