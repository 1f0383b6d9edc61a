import type { JSX } from 'preact';
import { RelativeTime } from '../../components/time/RelativeTime';
import type { FailingPeer, RelayState } from './types';

/** "12 KB", "3.4 MB": sizes as a person reads them. */
function bytes(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MB`;
}

function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/**
 * The relay connection as the owner needs to know it: connected or not and since when, the last
 * error, what the relay holds for the instance (and what it had to drop), and the deliveries
 * waiting here. Without a relay, only the deliveries waiting.
 */
export function RelayStatus(props: { relay: RelayState }): JSX.Element {
  const r = props.relay;
  const shed = Object.entries(r.shed).filter(([, n]) => n > 0);
  return (
    <section aria-labelledby="relay-title" class="connection-card">
      <h2 id="relay-title">Relay</h2>
      {r.enabled ? (
        <dl class="facts">
          <dt>Relay</dt>
          <dd>{r.relay_url}</dd>
          {r.origin && (
            <>
              <dt>Public address</dt>
              <dd>{r.origin}</dd>
            </>
          )}
          <dt>State</dt>
          <dd>
            {r.connected ? (
              <>
                Connected{r.connected_since && <> since <RelativeTime iso={r.connected_since} /></>}
              </>
            ) : (
              'Not connected'
            )}
          </dd>
          {r.last_error && (
            <>
              <dt>Last error</dt>
              <dd>
                {r.last_error}
                {r.last_error_at && <> (<RelativeTime iso={r.last_error_at} />)</>}
              </dd>
            </>
          )}
          <dt>Held by the relay</dt>
          <dd>
            {r.backlog === 0 ? 'Nothing waiting' : `${plural(r.backlog, 'message', 'messages')} (${bytes(r.backlog_bytes)})`}
            {r.oldest_backlog_at && (
              <>
                , the oldest from <RelativeTime iso={r.oldest_backlog_at} />
              </>
            )}
          </dd>
          {shed.length > 0 && (
            <>
              <dt>Dropped by the relay</dt>
              <dd>{shed.map(([type, n]) => `${n} ${type}`).join(', ')}</dd>
            </>
          )}
          <dt>Apps through the relay</dt>
          <dd>{r.clients ? 'Yes' : 'No'}</dd>
        </dl>
      ) : (
        <p>This instance does not use a relay.</p>
      )}
      <p>{r.outbound_pending === 0 ? 'No deliveries are waiting to go out.' : `${plural(r.outbound_pending, 'delivery is', 'deliveries are')} waiting to go out.`}</p>
    </section>
  );
}

/** The servers our deliveries are failing to reach, since when, and what they answered. */
export function FailingPeers(props: { peers: FailingPeer[] }): JSX.Element {
  return (
    <section aria-labelledby="peers-title" class="connection-card">
      <h2 id="peers-title">Servers not reached</h2>
      {props.peers.length === 0 ? (
        <p>Deliveries are reaching every server.</p>
      ) : (
        <ul class="peers" aria-labelledby="peers-title">
          {props.peers.map((p) => (
            <li key={p.inbox}>
              <strong class="peer-host">{p.host}</strong>
              <span>
                failing since <RelativeTime iso={p.first_failed_at} />, {plural(p.failures, 'attempt', 'attempts')}, last{' '}
                <RelativeTime iso={p.last_failed_at} />
              </span>
              <span class="peer-error">{p.last_status === null ? `No answer: ${p.last_error}` : `Answered ${p.last_status}${p.last_error ? `: ${p.last_error}` : ''}`}</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
