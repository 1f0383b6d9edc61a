// The parts of the SQLite store that do more than one statement: accepting (repeat check,
// shedding, storing), retention, and the tenant list with usage. Each runs inside the group
// commit's transaction (see GroupCommit), so none of them commits or awaits.
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { PRIORITIES } from '../protocol.js';
import { inboundBytes, SHED_BATCH, ShedPlan, shedCeiling, TENANT_COLUMNS, toTenant, UnknownTenantError, type ShedCandidate, type TenantRow } from './common.js';
import type { AcceptOutcome, InboundMessage, TenantUsage } from './types.js';

/** An inbound row as `pending` selects it. */
export interface InboundRow {
  seq: number;
  received_at: number;
  method: string;
  path: string;
  headers: string;
  body: Buffer;
  body_hash: string;
  priority: number;
  activity_type: string;
  attempts: number;
}

type Sql = (text: string) => Statement;

/** Adds shed messages to a tenant's counts by activity type. */
function countShed(sql: Sql, tenantId: string, counts: Map<string, number>): void {
  const add = sql(
    `INSERT INTO shed_counts (tenant_id, activity_type, count) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id, activity_type) DO UPDATE SET count = count + excluded.count`,
  );
  for (const [type, count] of counts) add.run(tenantId, type, count);
}

/** What `RelayStore.accept` does, inside a transaction. */
export function acceptIn(
  sql: Sql,
  tenantId: string,
  message: InboundMessage,
  limits: { quotaBytes: number; dedupeSince: number },
): AcceptOutcome {
  const tenant = sql('SELECT next_seq, backlog_bytes FROM tenants WHERE id = ?').get(tenantId) as { next_seq: number; backlog_bytes: number } | undefined;
  if (!tenant) throw new UnknownTenantError(tenantId);
  const repeat = sql('SELECT 1 FROM seen WHERE tenant_id = ? AND body_hash = ? AND received_at >= ?').get(tenantId, message.bodyHash, limits.dedupeSince);
  if (repeat) return { kind: 'duplicate' };

  const bytes = inboundBytes(message);
  const need = tenant.backlog_bytes + bytes - limits.quotaBytes;
  let plan: ShedPlan | null = null;
  if (need > 0) {
    plan = new ShedPlan(need);
    const ceiling = shedCeiling(message.priority);
    const next = sql(
      `SELECT seq, priority, bytes, activity_type AS activityType FROM inbound
       WHERE tenant_id = ? AND priority <= ? AND (priority, seq) > (?, ?) ORDER BY priority, seq LIMIT ?`,
    );
    let after = { priority: -1, seq: 0 };
    for (;;) {
      const batch = next.all(tenantId, ceiling, after.priority, after.seq, SHED_BATCH) as ShedCandidate[];
      if (plan.add(batch) || batch.length < SHED_BATCH) break;
      const last = batch[batch.length - 1] as ShedCandidate;
      after = { priority: last.priority, seq: last.seq };
    }
    // Not enough room even with every candidate gone: a message that must be kept is stored
    // anyway (over quota, with everything sheddable shed), any other is shed itself and nothing
    // else is touched, since shedding the others would not make room for it.
    if (plan.freed < need && message.priority < PRIORITIES.keep) {
      countShed(sql, tenantId, new Map([[message.activityType, 1]]));
      return { kind: 'shed' };
    }
    const remove = sql('DELETE FROM inbound WHERE tenant_id = ? AND seq = ?');
    for (const victim of plan.victims) remove.run(tenantId, victim.seq);
    countShed(sql, tenantId, plan.counts());
  }

  const seq = tenant.next_seq;
  sql(
    `INSERT INTO inbound (tenant_id, seq, received_at, method, path, headers, body, body_hash, priority, activity_type, bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ).run(
    tenantId,
    seq,
    message.receivedAt,
    message.method,
    message.path,
    JSON.stringify(message.headers),
    message.body,
    message.bodyHash,
    message.priority,
    message.activityType,
    bytes,
  );
  sql(
    `INSERT INTO seen (tenant_id, body_hash, received_at) VALUES (?, ?, ?)
     ON CONFLICT (tenant_id, body_hash) DO UPDATE SET received_at = excluded.received_at`,
  ).run(tenantId, message.bodyHash, message.receivedAt);
  const shedCount = plan?.victims.length ?? 0;
  sql('UPDATE tenants SET next_seq = next_seq + 1, backlog_count = backlog_count + ?, backlog_bytes = backlog_bytes + ? WHERE id = ?').run(
    1 - shedCount,
    bytes - (plan?.freed ?? 0),
    tenantId,
  );
  return { kind: 'stored', seq, shed: (plan?.victims ?? []).map((v) => ({ seq: v.seq, activityType: v.activityType })) };
}

/** What `RelayStore.expire` does, inside a transaction. */
export function expireIn(sql: Sql, before: number, dedupeBefore: number): number {
  const perTenant = sql('SELECT tenant_id, COUNT(*) AS count, SUM(bytes) AS bytes FROM inbound WHERE received_at < ? GROUP BY tenant_id').all(before) as {
    tenant_id: string;
    count: number;
    bytes: number;
  }[];
  let removed = 0;
  if (perTenant.length > 0) {
    sql('DELETE FROM inbound WHERE received_at < ?').run(before);
    const update = sql('UPDATE tenants SET backlog_count = backlog_count - ?, backlog_bytes = backlog_bytes - ? WHERE id = ?');
    for (const t of perTenant) {
      update.run(t.count, t.bytes, t.tenant_id);
      countShed(sql, t.tenant_id, new Map([['expired', t.count]]));
      removed += t.count;
    }
  }
  sql('DELETE FROM seen WHERE received_at < ?').run(dedupeBefore);
  return removed;
}

/** Every tenant with its usage, by host. */
export function listTenantsIn(db: SqliteDatabase): TenantUsage[] {
  const tenants = db
    .prepare(
      `SELECT ${TENANT_COLUMNS}, backlog_count, backlog_bytes,
         (SELECT COALESCE(SUM(bytes), 0) FROM cache WHERE cache.tenant_id = tenants.id) AS cache_bytes
       FROM tenants ORDER BY host`,
    )
    .all() as (TenantRow & { backlog_count: number; backlog_bytes: number; cache_bytes: number })[];
  const shed = db.prepare('SELECT tenant_id, activity_type, count FROM shed_counts ORDER BY activity_type').all() as {
    tenant_id: string;
    activity_type: string;
    count: number;
  }[];
  const shedOf = new Map<string, Record<string, number>>();
  for (const row of shed) {
    const counts = shedOf.get(row.tenant_id) ?? {};
    counts[row.activity_type] = row.count;
    shedOf.set(row.tenant_id, counts);
  }
  return tenants.map((row) => ({
    ...toTenant(row),
    backlogCount: row.backlog_count,
    backlogBytes: row.backlog_bytes,
    cacheBytes: row.cache_bytes,
    shed: shedOf.get(row.id) ?? {},
  }));
}
