/** How the instance is reached (`GET`/`PUT /api/hearth/reach`). */
export interface Reach {
  mode: 'local' | 'origin' | 'relay';
  origin: string | null;
  relay_url: string | null;
  /** True when the running server still works with another setting: a restart applies it. */
  restart_required: boolean;
  /** Whether the server can restart itself (`POST /api/hearth/restart`): it runs under `hearth serve`. */
  restart_available?: boolean;
  /** Why the last restart failed, if it did. */
  last_restart_error?: string | null;
}

/** A peer deliveries are failing to reach. */
export interface FailingPeer {
  host: string;
  inbox: string;
  first_failed_at: string;
  last_failed_at: string;
  failures: number;
  last_status: number | null;
  last_error: string;
}

/** The relay connection and delivery health (`GET /api/hearth/relay`). */
export interface RelayState {
  enabled: boolean;
  relay_url: string | null;
  host: string | null;
  origin: string | null;
  enrolled_at: string | null;
  connected: boolean;
  connected_since: string | null;
  last_error: string | null;
  last_error_at: string | null;
  /** Whether the relay also carries the client API. */
  clients: boolean;
  backlog: number;
  backlog_bytes: number;
  oldest_backlog_at: string | null;
  /** What the relay dropped over its quota, by activity type. */
  shed: Record<string, number>;
  outbound_pending: number;
  reported_at: string | null;
  failing_peers: FailingPeer[];
}
