// The instance's connector to its relay (ARCHITECTURE.md, "The relay"): the tunnel client, the
// replay of stored deliveries, live requests, the outbound hand-off and the public cache publisher.
// It shares only relay/protocol.ts with the relay.
import type { Deps } from '../core/deps.js';
import { isFederationPaused } from '../core/federation/pause.js';
import type { ConnectorReport } from '../core/relay/status.js';
import type { RelayEnrolmentRow } from '../db/repos/relay.js';
import { pruneApplied, saveRelayStatus } from '../db/repos/relay.js';
import type { HearthFederation } from '../federation/index.js';
import { now } from '../util/clock.js';
import type { ToInstance } from '../../relay/protocol.js';
import { RETENTION_MS } from '../../relay/protocol.js';
import { installEgress, RelayEgress } from './egress.js';
import { ReplayReceiver } from './inbound.js';
import { LiveRequests } from './live.js';
import { PublishChannel } from './publish-channel.js';
import { TunnelClient, type TunnelState } from './tunnel-client.js';

export { startPublisher } from './publisher.js';

/** How often the connector writes its report even when nothing changed (readers treat 90 s as stale). */
const REPORT_EVERY_MS = 30_000;

/** A running connector. */
export interface RelayConnector {
  /** The report as it stands (what the status endpoint and command read from the database). */
  report(): ConnectorReport;
  /** Resolves once connected (true), or false after `timeoutMs`. */
  whenConnected(timeoutMs: number): Promise<boolean>;
  /** The egress that makes the instance's outgoing requests through the relay (the delivery thread uses it too). */
  readonly egress: RelayEgress;
  /**
   * Takes no more replayed deliveries and stops publishing (the instance is stopping); what is in
   * hand finishes, and the tunnel stays up for the deliveries still leaving.
   */
  pause(): Promise<void>;
  stop(): Promise<void>;
}

/** The public cache publisher: the connector waits for it before a delivery leaves (see publisher.ts). */
export interface Publisher {
  /** Resolves once every document that changed so far is on the relay (or was refused there). */
  published(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the connector of an enrolled instance: dials the relay and keeps the tunnel up, applies
 * the deliveries the relay replays, answers the live requests it carries, and makes every
 * outgoing request through it (the process's `fetch`, for any URL but the instance's own listener).
 */
export function startRelayConnector(
  deps: Deps,
  federation: HearthFederation,
  enrolment: RelayEnrolmentRow,
  localUrl: string,
  options: { clients: boolean; publisher?: ((channel: PublishChannel) => Publisher) | null },
): RelayConnector {
  const report: ConnectorReport = {
    connected: false,
    connectedSince: null,
    lastError: null,
    lastErrorAt: null,
    backlog: 0,
    backlogBytes: 0,
    oldestBacklogAt: null,
    shed: {},
    clients: options.clients,
  };
  let paused = false;
  let writeTimer: NodeJS.Timeout | null = null;
  const write = () => {
    if (writeTimer) return;
    // Changes within a tick or so are written together.
    writeTimer = setTimeout(() => {
      writeTimer = null;
      try {
        saveRelayStatus(deps.db, JSON.stringify(report), now());
      } catch (err) {
        console.error('relay: could not write the connector status', err);
      }
    }, 50);
  };
  const onState = (state: TunnelState) => {
    Object.assign(report, { connected: state.connected, connectedSince: state.since, lastError: state.lastError, lastErrorAt: state.lastErrorAt });
    write();
  };
  const tunnel: TunnelClient = new TunnelClient(enrolment.relay_url, enrolment.host, enrolment.tunnel_private_key, options.clients, {
    onFrame: (frame, body) => dispatch(frame, body),
    onOpen: () => {
      // Deliveries that failed while the tunnel was down are due now rather than after their back-off.
      federation.retryDeliveriesNow();
    },
    onClose: () => {
      live.closeAll();
      egress.failAll();
      channel.failAll();
    },
    onState,
  });
  const receiver = new ReplayReceiver({
    db: deps.db,
    host: enrolment.host,
    deliver: (input, receivedAt) => federation.deliver(input, receivedAt),
    reply: (frame) => void tunnel.send(frame),
  });
  const live = new LiveRequests({ localUrl, reply: (frame, body) => void tunnel.send(frame, body), buffered: () => tunnel.buffered, clients: options.clients });
  const egress = new RelayEgress({
    send: (frame, body) => tunnel.send(frame, body),
    whenConnected: (ms) => tunnel.whenConnected(ms),
    published: () => publisher?.published() ?? Promise.resolve(),
  });
  const channel = new PublishChannel({ send: (frame, body) => tunnel.send(frame, body), whenConnected: (ms) => tunnel.whenConnected(ms), buffered: () => tunnel.buffered });
  const publisher = options.publisher?.(channel) ?? null;
  const local = new URL(localUrl);
  const relayHost = new URL(enrolment.relay_url).host;
  // The instance's own listener and the relay itself are reached directly; everything else through the relay.
  const uninstallHere = installEgress(egress, (url) => url.host === local.host || url.host === relayHost || url.hostname === 'localhost');
  federation.routeDeliveriesThrough((request) => egress.fetch(request));
  const uninstall = () => {
    uninstallHere();
    federation.routeDeliveriesThrough(null);
  };

  function dispatch(frame: ToInstance, body: Buffer): void {
    switch (frame.t) {
      case 'inbound':
        // Paused (stopping): not acknowledged, so the relay sends it again next time.
        if (paused) return;
        receiver.receive({ seq: frame.seq, receivedAt: frame.receivedAt, input: { method: frame.method, path: frame.path, headers: frame.headers, body } });
        return;
      case 'backlog':
        Object.assign(report, { backlog: frame.count, backlogBytes: frame.bytes, oldestBacklogAt: frame.oldestAt, shed: frame.shed });
        write();
        return;
      case 'ping':
        tunnel.send({ t: 'pong', at: frame.at });
        return;
      default:
        if (live.handle(frame, body) || egress.handle(frame, body) || channel.handle(frame)) return;
    }
  }

  const beat = setInterval(() => {
    write();
    try {
      pruneApplied(deps.db, now() - RETENTION_MS);
    } catch (err) {
      console.error('relay: could not prune applied messages', err);
    }
  }, REPORT_EVERY_MS);
  beat.unref();
  write();
  // Federation paused (core/federation/pause.ts): the tunnel stays closed, so that the relay keeps
  // the incoming mail (it stores it while the instance is offline) until federation resumes.
  let tunnelChanges: Promise<void> = Promise.resolve();
  const offPause = deps.events.on('federation.paused', ({ paused: pausedNow }) => {
    tunnelChanges = tunnelChanges
      .then(async () => {
        if (pausedNow) await tunnel.stop();
        else tunnel.start();
      })
      .catch((err: unknown) => console.error('relay: could not pause or resume the tunnel', err));
  });
  if (!isFederationPaused(deps)) tunnel.start();

  return {
    report: () => ({ ...report }),
    whenConnected: (ms) => tunnel.whenConnected(ms),
    egress,
    async pause() {
      paused = true;
      await publisher?.stop();
    },
    async stop() {
      offPause();
      await tunnelChanges;
      clearInterval(beat);
      await publisher?.stop();
      await tunnel.stop();
      channel.failAll();
      live.closeAll();
      egress.failAll();
      uninstall();
      if (writeTimer) clearTimeout(writeTimer);
      writeTimer = null;
      report.connected = false;
      report.connectedSince = null;
      try {
        saveRelayStatus(deps.db, JSON.stringify(report), now());
      } catch {
        // The database may be closing with the instance; the stale report reads as offline anyway.
      }
    },
  };
}
