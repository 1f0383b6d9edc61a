import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { ApiFailure, useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { ErrorRetry } from '../../components/layout/ErrorRetry';
import { toast } from '../../components/layout/toasts';
import { RelativeTime } from '../../components/time/RelativeTime';

/** Whether federation is paused (`GET`/`PUT /api/hearth/federation`). */
export interface FederationPauseState {
  paused: boolean;
  since: string | null;
}

const KEY = ['hearth', 'federation'];

/**
 * The federation switch of the Connection screen (the desktop tray has the same): while paused,
 * nothing is sent and nothing is taken in (the relay keeps the mail, servers that deliver
 * directly try again later); resuming sends what waited. The change shows at once and is undone,
 * with a toast and Retry, when the instance refuses it.
 */
export function FederationPause(): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const state = useQuery({
    queryKey: KEY,
    queryFn: () => api.fetchJson<FederationPauseState>('/api/hearth/federation'),
    retry: (n, e) => !(e instanceof ApiFailure && e.status < 500) && n < 1,
  });
  const change = useMutation({
    mutationFn: (paused: boolean) => api.fetchJson<FederationPauseState>('/api/hearth/federation', { method: 'PUT', body: JSON.stringify({ paused }) }),
    onMutate: async (paused) => {
      await client.cancelQueries({ queryKey: KEY });
      const before = client.getQueryData<FederationPauseState>(KEY);
      client.setQueryData<FederationPauseState>(KEY, { paused, since: paused ? new Date().toISOString() : null });
      return { before };
    },
    onError: (error, paused, context) => {
      client.setQueryData(KEY, context?.before);
      toast(`${paused ? 'Pausing' : 'Resuming'} federation failed: ${describeError(error)}`, { retry: () => change.mutate(paused) });
    },
    onSuccess: (saved) => {
      client.setQueryData(KEY, saved);
      // The relay's state and the deliveries waiting change with it.
      void client.invalidateQueries({ queryKey: ['hearth', 'relay'] });
    },
  });

  const data = state.data;
  return (
    <section aria-labelledby="federation-title" class="connection-card">
      <h2 id="federation-title">Federation</h2>
      {state.isPending && <p role="status">Loading…</p>}
      {state.isError && <ErrorRetry error={state.error} onRetry={() => state.refetch()} />}
      {data && (
        <>
          <p role="status">
            {data.paused ? (
              <>
                Federation is paused{data.since && <> since <RelativeTime iso={data.since} /></>}. Nothing goes out: your posts wait
                here. Nothing comes in: the relay keeps your mail, and servers that deliver directly try again later.
              </>
            ) : (
              'Federation is on: your posts go out to other servers and theirs come in.'
            )}
          </p>
          <div class="form-actions">
            <button type="button" disabled={change.isPending} onClick={() => change.mutate(!data.paused)}>
              {data.paused ? 'Resume federation' : 'Pause federation'}
            </button>
          </div>
        </>
      )}
    </section>
  );
}
