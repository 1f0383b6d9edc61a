import type { Deps } from '../deps.js';
import { queueDepth } from '../../db/repos/federation.js';
import { getRelayEnrolment, getRelayStatus } from '../../db/repos/relay.js';
import { now } from '../../util/clock.js';

/** What the running connector writes about its tunnel (api/relay/index.ts). */
export interface ConnectorReport {
  connected: boolean;
  connectedSince: number | null;
  lastError: string | null;
  lastErrorAt: number | null;
  /** Inbound messages the relay still holds for the instance, as it last said. */
  backlog: number;
  backlogBytes: number;
  oldestBacklogAt: number | null;
  /** What the relay shed over quota (or after 30 days), by activity type. */
  shed: Record<string, number>;
  /** Whether the relay carries the client API (`--relay-clients`). */
  clients: boolean;
}

/** The relay as the owner sees it. */
export interface RelayStatus extends ConnectorReport {
  enabled: boolean;
  relayUrl: string | null;
  host: string | null;
  origin: string | null;
  enrolledAt: number | null;
  /** Deliveries waiting in the instance's own queue. */
  outboundPending: number;
  /** When the connector last wrote its report (it does at least every 30 s while running). */
  reportedAt: number | null;
}

/** A report older than this is from a connector that is not running any more. */
const STALE_MS = 90_000;

const OFFLINE: ConnectorReport = {
  connected: false,
  connectedSince: null,
  lastError: null,
  lastErrorAt: null,
  backlog: 0,
  backlogBytes: 0,
  oldestBacklogAt: null,
  shed: {},
  clients: false,
};

/**
 * The relay connection's state, read from the instance's data (so that a command in another
 * process sees the same as the owner's status endpoint): the enrolment, the connector's last
 * report (not connected when the report is stale: the server is not running), and the deliveries
 * waiting in the queue.
 */
export function relayStatus(deps: Pick<Deps, 'db'>): RelayStatus {
  const enrolment = getRelayEnrolment(deps.db);
  const row = getRelayStatus(deps.db);
  let report: ConnectorReport = OFFLINE;
  if (row) {
    try {
      report = { ...OFFLINE, ...(JSON.parse(row.status) as Partial<ConnectorReport>) };
    } catch {
      report = OFFLINE;
    }
    if (now() - row.updated_at > STALE_MS) report = { ...report, connected: false, connectedSince: null };
  }
  return {
    ...report,
    enabled: enrolment !== undefined,
    relayUrl: enrolment?.relay_url ?? null,
    host: enrolment?.host ?? null,
    origin: enrolment?.origin ?? null,
    enrolledAt: enrolment?.enrolled_at ?? null,
    outboundPending: queueDepth(deps.db, 'outbox', now()).queued,
    reportedAt: row?.updated_at ?? null,
  };
}
