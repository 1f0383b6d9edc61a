import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { RelativeTime } from '../../components/time/RelativeTime';
import { useConfirm } from '../../components/dialog/confirm';
import { QueryState, Section } from '../../components/layout/section';

/** An application holding tokens of this person (Hearth's `/api/hearth/authorized_apps`). */
interface AuthorizedApp {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  tokens: number;
  created_at: string;
  last_used_at: string | null;
  current: boolean;
}

const KEY = ['settings', 'authorized_apps'];

/** Settings > Authorized apps: the apps that can use this account, each with Revoke. */
export function AuthorizedApps(): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const [confirmation, ask] = useConfirm();
  const query = useQuery({ queryKey: KEY, queryFn: () => api.fetchJson<AuthorizedApp[]>('/api/hearth/authorized_apps') });
  const revoke = useMutation({
    mutationFn: (app: AuthorizedApp) => api.fetchJson(`/api/hearth/authorized_apps/${app.id}`, { method: 'DELETE' }),
    onMutate: async (app) => {
      await client.cancelQueries({ queryKey: KEY });
      const before = client.getQueryData<AuthorizedApp[]>(KEY);
      client.setQueryData<AuthorizedApp[]>(KEY, (old) => old?.filter((a) => a.id !== app.id));
      return { before };
    },
    onError: (error, app, context) => {
      client.setQueryData(KEY, context?.before);
      toast(`Revoking ${app.name} failed: ${describeError(error)}`, { retry: () => revoke.mutate(app) });
    },
  });
  return (
    <Section title="Authorized apps">
      <p class="hint">These apps can use your account. Revoking one signs it out everywhere.</p>
      <QueryState query={query} label="authorized apps">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Authorized apps">
              {query.data.map((app) => (
                <li key={app.id}>
                  <span class="grow">
                    <strong>{app.name}</strong>
                    {app.current && <span class="hint"> (this app)</span>}{' '}
                    <span class="hint">
                      {app.scopes.join(', ')} · authorized <RelativeTime iso={app.created_at} />
                      {app.last_used_at && (
                        <>
                          {' '}
                          · last used <RelativeTime iso={app.last_used_at} />
                        </>
                      )}
                    </span>
                  </span>
                  <button
                    type="button"
                    aria-label={`Revoke ${app.name}`}
                    onClick={() => (app.current ? ask(`Revoke ${app.name}?`, 'This signs you out of this app here too.', 'Revoke', () => revoke.mutate(app)) : revoke.mutate(app))}
                  >
                    Revoke
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No apps are authorized.</p>
          )
        }
      </QueryState>
      {confirmation}
    </Section>
  );
}
