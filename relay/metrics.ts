/**
 * The relay's metrics in Prometheus text format (`GET /metrics` on the relay's own host): per-tenant
 * backlog, accept latency, replay rate, shed counts and connected tunnels. Counters and the
 * histogram live in this process; gauges are read when scraped.
 */

/** Bucket bounds of the accept latency histogram, in seconds. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}

function labels(values: Record<string, string>): string {
  const parts = Object.entries(values).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
  return parts.length ? `{${parts.join(',')}}` : '';
}

/** A latency histogram with fixed buckets. */
class Histogram {
  private readonly counts = LATENCY_BUCKETS.map(() => 0);
  private sum = 0;
  private count = 0;

  observe(seconds: number): void {
    this.sum += seconds;
    this.count += 1;
    for (let i = 0; i < LATENCY_BUCKETS.length; i++) if (seconds <= (LATENCY_BUCKETS[i] as number)) this.counts[i] = (this.counts[i] as number) + 1;
  }

  render(name: string): string[] {
    const lines = LATENCY_BUCKETS.map((le, i) => `${name}_bucket{le="${le}"} ${this.counts[i]}`);
    lines.push(`${name}_bucket{le="+Inf"} ${this.count}`, `${name}_sum ${this.sum}`, `${name}_count ${this.count}`);
    return lines;
  }
}

/** Per-tenant figures read from the store when scraped. */
export interface TenantFigures {
  host: string;
  backlogCount: number;
  backlogBytes: number;
  cacheBytes: number;
  shed: Record<string, number>;
}

/** The metrics of one relay process. */
export class RelayMetrics {
  readonly acceptLatency = new Histogram();
  /** Inbox POSTs answered, by status. */
  private readonly accepted = new Map<string, number>();
  /** Inbound messages acknowledged by instances (the replay rate is its derivative), by host. */
  private readonly replayed = new Map<string, number>();
  /** Deliveries sent for instances, by outcome (`ok`, `failed`). */
  private readonly sent = new Map<string, number>();
  private readonly liveRequests = new Map<string, number>();

  countAccept(status: number): void {
    this.accepted.set(String(status), (this.accepted.get(String(status)) ?? 0) + 1);
  }

  countReplayed(host: string, n = 1): void {
    this.replayed.set(host, (this.replayed.get(host) ?? 0) + n);
  }

  countSent(outcome: 'ok' | 'failed'): void {
    this.sent.set(outcome, (this.sent.get(outcome) ?? 0) + 1);
  }

  /** A live request answered `through` the tunnel, from the `cache`, or `offline` (503). */
  countLive(how: 'tunnel' | 'cache' | 'offline' | 'node'): void {
    this.liveRequests.set(how, (this.liveRequests.get(how) ?? 0) + 1);
  }

  /** The text a Prometheus scrape gets. */
  render(tenants: readonly TenantFigures[], tunnelsConnected: number): string {
    const out: string[] = [];
    const family = (name: string, type: string, help: string) => out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
    family('hearth_relay_tunnels_connected', 'gauge', 'Instances whose tunnel this process holds.');
    out.push(`hearth_relay_tunnels_connected ${tunnelsConnected}`);
    family('hearth_relay_backlog_messages', 'gauge', 'Inbound messages waiting for the instance.');
    for (const t of tenants) out.push(`hearth_relay_backlog_messages${labels({ tenant: t.host })} ${t.backlogCount}`);
    family('hearth_relay_backlog_bytes', 'gauge', 'Bytes of inbound messages waiting for the instance.');
    for (const t of tenants) out.push(`hearth_relay_backlog_bytes${labels({ tenant: t.host })} ${t.backlogBytes}`);
    family('hearth_relay_cache_bytes', 'gauge', 'Bytes of public documents cached for the instance.');
    for (const t of tenants) out.push(`hearth_relay_cache_bytes${labels({ tenant: t.host })} ${t.cacheBytes}`);
    family('hearth_relay_shed_total', 'counter', 'Inbound messages shed over quota or after retention, by activity type.');
    for (const t of tenants) for (const [type, n] of Object.entries(t.shed)) out.push(`hearth_relay_shed_total${labels({ tenant: t.host, type })} ${n}`);
    family('hearth_relay_accept_seconds', 'histogram', 'Time from an inbox POST to its answer.');
    out.push(...this.acceptLatency.render('hearth_relay_accept_seconds'));
    family('hearth_relay_inbox_posts_total', 'counter', 'Inbox POSTs answered, by status.');
    for (const [status, n] of this.accepted) out.push(`hearth_relay_inbox_posts_total${labels({ status })} ${n}`);
    family('hearth_relay_replayed_total', 'counter', 'Inbound messages acknowledged by the instance.');
    for (const [host, n] of this.replayed) out.push(`hearth_relay_replayed_total${labels({ tenant: host })} ${n}`);
    family('hearth_relay_sent_total', 'counter', 'Deliveries sent for instances, by outcome.');
    for (const [outcome, n] of this.sent) out.push(`hearth_relay_sent_total${labels({ outcome })} ${n}`);
    family('hearth_relay_live_requests_total', 'counter', 'Requests to instance hosts other than inbox POSTs, by how they were answered.');
    for (const [how, n] of this.liveRequests) out.push(`hearth_relay_live_requests_total${labels({ how })} ${n}`);
    return `${out.join('\n')}\n`;
  }
}
