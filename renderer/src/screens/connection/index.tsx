import { useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { ApiFailure, useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { FederationPause } from './FederationPause';
import { ReachForm } from './ReachForm';
import { Restart } from './Restart';
import { FailingPeers, RelayStatus } from './RelayStatus';
import type { Reach, RelayState } from './types';
import './connection.css';

const REACH_WORDS: Record<Reach['mode'], string> = {
  local: 'Only on this computer and your home network.',
  origin: 'At your own address, behind your proxy.',
  relay: 'Through a relay.',
};

function QueryError(props: { error: unknown; retry: () => void }): JSX.Element {
  return (
    <div class="error" role="alert">
      <p>{describeError(props.error)}</p>
      <button type="button" onClick={props.retry}>
        Try again
      </button>
    </div>
  );
}

/**
 * `/connection`: for the owner, how the instance is reached (and changing it), pausing federation,
 * the relay connection with its backlog, the deliveries waiting and the servers deliveries fail
 * to reach.
 * With `?setup=1` it is the last step of the first run: the choice of how the instance is reached,
 * then home. Anyone else is told that this is the owner's business.
 */
export function Connection(_props: Record<string, unknown>): JSX.Element {
  const api = useApi();
  const { query, route } = useLocation();
  const firstRun = query.setup === '1';
  // The restart notice goes once the restarted server answers; this says it happened.
  const [restarted, setRestarted] = useState(false);
  const reach = useQuery({ queryKey: ['hearth', 'reach'], queryFn: () => api.fetchJson<Reach>('/api/hearth/reach'), retry: (n, e) => !(e instanceof ApiFailure && e.status < 500) && n < 1 });
  const relay = useQuery({
    queryKey: ['hearth', 'relay'],
    queryFn: () => api.fetchJson<RelayState>('/api/hearth/relay'),
    enabled: !firstRun,
    refetchInterval: 30_000,
    retry: (n, e) => !(e instanceof ApiFailure && e.status < 500) && n < 1,
  });
  const notOwner = [reach.error, relay.error].some((e) => e instanceof ApiFailure && e.status === 403);

  if (notOwner)
    return (
      <section aria-labelledby="screen-title" class="connection">
        <h1 id="screen-title">Connection</h1>
        <p>Only the owner of this instance can see and change how it is connected. Ask them if something does not arrive.</p>
      </section>
    );

  if (firstRun)
    return (
      <section aria-labelledby="screen-title" class="connection">
        <h1 id="screen-title">How will people reach your Hearth?</h1>
        <p>You can change this later under Connection.</p>
        {reach.isPending && <p role="status">Loading…</p>}
        {reach.isError && <QueryError error={reach.error} retry={() => void reach.refetch()} />}
        {reach.data && (
          <ReachForm
            current={reach.data}
            submitLabel="Continue"
            onSaved={(saved) => {
              if (!saved.restart_required) route('/');
            }}
          />
        )}
        {reach.data && (
          <p>
            <a href="/">Go to your home timeline</a>
          </p>
        )}
      </section>
    );

  return (
    <section aria-labelledby="screen-title" class="connection">
      <h1 id="screen-title">Connection</h1>
      <section aria-labelledby="reach-title" class="connection-card">
        <h2 id="reach-title">How this instance is reached</h2>
        {reach.isPending && <p role="status">Loading…</p>}
        {reach.isError && <QueryError error={reach.error} retry={() => void reach.refetch()} />}
        {reach.data && (
          <>
            <p>
              {REACH_WORDS[reach.data.mode]}
              {reach.data.mode === 'origin' && reach.data.origin && <> ({reach.data.origin})</>}
              {reach.data.mode === 'relay' && reach.data.relay_url && <> ({reach.data.relay_url})</>}
            </p>
            {reach.data.restart_required && <Restart available={reach.data.restart_available ?? false} onRestarted={() => setRestarted(true)} />}
            {restarted && !reach.data.restart_required && <p role="status">Hearth has restarted with the new setting.</p>}
            {reach.data.last_restart_error && (
              <p class="error">The last restart failed: {reach.data.last_restart_error}</p>
            )}
            <details>
              <summary>Change how this instance is reached</summary>
              <ReachForm current={reach.data} submitLabel="Save" restartNotice={false} />
            </details>
          </>
        )}
      </section>
      {/* A local-only instance does not federate: nothing to pause. */}
      {reach.data && reach.data.mode !== 'local' && <FederationPause />}
      {relay.isPending && <p role="status">Loading the connection…</p>}
      {relay.isError && <QueryError error={relay.error} retry={() => void relay.refetch()} />}
      {relay.data && <RelayStatus relay={relay.data} />}
      {relay.data && <FailingPeers peers={relay.data.failing_peers} />}
    </section>
  );
}
