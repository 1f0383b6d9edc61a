// The parts of the PostgreSQL store that do more than one statement: accepting (repeat check,
// shedding, storing), acknowledgements, retention, replay and the tenant list with usage.
//
// Lock order, to keep concurrent transactions from deadlocking: a tenant's row first, then its
// inbound rows. Every transaction that changes a tenant's backlog takes the tenant's row before
// touching the queue, which also makes sequence order commit order. FOR NO KEY UPDATE, not FOR
// UPDATE: it excludes the tenant's other accepts but not the key-share locks of foreign keys, so
// cache and tunnel writes of the tenant do not wait for its accepts.
import type { Pool, PoolClient } from 'pg';
import { PRIORITIES } from '../protocol.js';
import { inboundBytes, parseHeaders, SHED_BATCH, ShedPlan, shedCeiling, TENANT_COLUMNS, toTenant, UnknownTenantError, type ShedCandidate, type TenantRow } from './common.js';
import { transaction } from './postgres-tx.js';
import type { AcceptOutcome, InboundMessage, StoredInbound, TenantUsage } from './types.js';

/** Adds shed messages to a tenant's counts by activity type. */
async function countShed(client: PoolClient, tenantId: string, counts: Map<string, number>): Promise<void> {
  if (counts.size === 0) return;
  await client.query(
    `INSERT INTO shed_counts (tenant_id, activity_type, count)
     SELECT $1, t.type, t.count FROM unnest($2::text[], $3::bigint[]) AS t (type, count)
     ON CONFLICT (tenant_id, activity_type) DO UPDATE SET count = shed_counts.count + excluded.count`,
    [tenantId, [...counts.keys()], [...counts.values()]],
  );
}

/** What `RelayStore.accept` does, inside a transaction. */
export async function acceptWith(
  client: PoolClient,
  tenantId: string,
  message: InboundMessage,
  limits: { quotaBytes: number; dedupeSince: number },
): Promise<AcceptOutcome> {
  // The tenant's row lock: held until commit, it serializes the tenant's accepts across every
  // process, so the repeat check below sees every earlier body and the sequence has no gaps.
  const { rows } = await client.query<{ next_seq: string; backlog_bytes: string; repeat: boolean }>(
    `SELECT next_seq, backlog_bytes,
       EXISTS (SELECT 1 FROM seen WHERE tenant_id = $1 AND body_hash = $2 AND received_at >= $3) AS repeat
     FROM tenants WHERE id = $1 FOR NO KEY UPDATE`,
    [tenantId, message.bodyHash, limits.dedupeSince],
  );
  const tenant = rows[0];
  if (!tenant) throw new UnknownTenantError(tenantId);
  if (tenant.repeat) return { kind: 'duplicate' };

  const bytes = inboundBytes(message);
  const need = Number(tenant.backlog_bytes) + bytes - limits.quotaBytes;
  let plan: ShedPlan | null = null;
  if (need > 0) {
    plan = new ShedPlan(need);
    const ceiling = shedCeiling(message.priority);
    let after = { priority: -1, seq: 0 };
    for (;;) {
      const batch = (
        await client.query<{ seq: string; priority: number; bytes: string; activity_type: string }>(
          `SELECT seq, priority, bytes, activity_type FROM inbound
           WHERE tenant_id = $1 AND priority <= $2 AND (priority, seq) > ($3, $4) ORDER BY priority, seq LIMIT $5`,
          [tenantId, ceiling, after.priority, after.seq, SHED_BATCH],
        )
      ).rows.map((r): ShedCandidate => ({ seq: Number(r.seq), priority: r.priority, bytes: Number(r.bytes), activityType: r.activity_type }));
      if (plan.add(batch) || batch.length < SHED_BATCH) break;
      const last = batch[batch.length - 1] as ShedCandidate;
      after = { priority: last.priority, seq: last.seq };
    }
    // Not enough room even with every candidate gone: a message that must be kept is stored
    // anyway (over quota, with everything sheddable shed), any other is shed itself and nothing
    // else is touched, since shedding the others would not make room for it.
    if (plan.freed < need && message.priority < PRIORITIES.keep) {
      await countShed(client, tenantId, new Map([[message.activityType, 1]]));
      return { kind: 'shed' };
    }
    await client.query('DELETE FROM inbound WHERE tenant_id = $1 AND seq = ANY ($2::bigint[])', [tenantId, plan.victims.map((v) => v.seq)]);
    await countShed(client, tenantId, plan.counts());
  }

  const seq = Number(tenant.next_seq);
  await client.query(
    `WITH stored AS (
       INSERT INTO inbound (tenant_id, seq, received_at, method, path, headers, body, body_hash, priority, activity_type, bytes)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
     ), remembered AS (
       INSERT INTO seen (tenant_id, body_hash, received_at) VALUES ($1, $8, $3)
       ON CONFLICT (tenant_id, body_hash) DO UPDATE SET received_at = excluded.received_at
     )
     UPDATE tenants SET next_seq = next_seq + 1, backlog_count = backlog_count + $12, backlog_bytes = backlog_bytes + $13 WHERE id = $1`,
    [
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
      1 - (plan?.victims.length ?? 0),
      bytes - (plan?.freed ?? 0),
    ],
  );
  return { kind: 'stored', seq, shed: (plan?.victims ?? []).map((v) => ({ seq: v.seq, activityType: v.activityType })) };
}

/** An accept waiting in a batch. */
export interface AcceptItem {
  message: InboundMessage;
  limits: { quotaBytes: number; dedupeSince: number };
}

/**
 * Accepts a batch of a tenant's deliveries in four round trips, when nothing needs shedding:
 * the tenant's row lock with the repeat hashes of the whole batch, then one statement storing
 * them all. Resolves to null, having written nothing, when some message would pass the quota:
 * the caller then takes them one by one with `acceptWith` in the same transaction.
 */
export async function acceptBatchWith(client: PoolClient, tenantId: string, items: readonly AcceptItem[]): Promise<AcceptOutcome[] | null> {
  const { rows } = await client.query<{ next_seq: string; backlog_bytes: string; seen: Record<string, number> | null }>(
    `SELECT next_seq, backlog_bytes,
       (SELECT json_object_agg(body_hash, received_at) FROM seen WHERE tenant_id = $1 AND body_hash = ANY ($2::text[])) AS seen
     FROM tenants WHERE id = $1 FOR NO KEY UPDATE`,
    [tenantId, [...new Set(items.map((i) => i.message.bodyHash))]],
  );
  const tenant = rows[0];
  if (!tenant) throw new UnknownTenantError(tenantId);
  const seen = new Map(Object.entries(tenant.seen ?? {}));
  let backlog = Number(tenant.backlog_bytes);
  let seq = Number(tenant.next_seq);
  const outcomes: AcceptOutcome[] = [];
  const stored: { message: InboundMessage; seq: number; bytes: number }[] = [];
  for (const { message, limits } of items) {
    const at = seen.get(message.bodyHash);
    if (at !== undefined && at >= limits.dedupeSince) {
      outcomes.push({ kind: 'duplicate' });
      continue;
    }
    const bytes = inboundBytes(message);
    if (backlog + bytes > limits.quotaBytes) return null;
    backlog += bytes;
    seen.set(message.bodyHash, message.receivedAt);
    stored.push({ message, seq, bytes });
    outcomes.push({ kind: 'stored', seq, shed: [] });
    seq += 1;
  }
  if (stored.length === 0) return outcomes;
  const column = <T>(pick: (s: (typeof stored)[number]) => T) => stored.map(pick);
  await client.query(
    `WITH stored AS (
       INSERT INTO inbound (tenant_id, seq, received_at, method, path, headers, body, body_hash, priority, activity_type, bytes)
       SELECT $1, * FROM unnest($2::bigint[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::bytea[], $8::text[], $9::smallint[], $10::text[], $11::bigint[])
     ), remembered AS (
       INSERT INTO seen (tenant_id, body_hash, received_at) SELECT $1, * FROM unnest($8::text[], $3::bigint[])
       ON CONFLICT (tenant_id, body_hash) DO UPDATE SET received_at = excluded.received_at
     )
     UPDATE tenants SET next_seq = next_seq + $12, backlog_count = backlog_count + $12, backlog_bytes = backlog_bytes + $13 WHERE id = $1`,
    [
      tenantId,
      column((s) => s.seq),
      column((s) => s.message.receivedAt),
      column((s) => s.message.method),
      column((s) => s.message.path),
      column((s) => JSON.stringify(s.message.headers)),
      column((s) => s.message.body),
      column((s) => s.message.bodyHash),
      column((s) => s.message.priority),
      column((s) => s.message.activityType),
      column((s) => s.bytes),
      stored.length,
      stored.reduce((sum, s) => sum + s.bytes, 0),
    ],
  );
  return outcomes;
}

/** What `RelayStore.ack` does, inside a transaction. */
export async function ackWith(client: PoolClient, tenantId: string, seqs: readonly number[]): Promise<void> {
  const locked = await client.query('SELECT 1 FROM tenants WHERE id = $1 FOR NO KEY UPDATE', [tenantId]);
  // A removed tenant took its queue with it: nothing left to forget.
  if (locked.rowCount === 0) return;
  await client.query(
    `WITH gone AS (DELETE FROM inbound WHERE tenant_id = $1 AND seq = ANY ($2::bigint[]) RETURNING bytes)
     UPDATE tenants SET backlog_count = backlog_count - (SELECT COUNT(*) FROM gone),
       backlog_bytes = backlog_bytes - (SELECT COALESCE(SUM(bytes), 0) FROM gone)
     WHERE id = $1`,
    [tenantId, [...new Set(seqs)]],
  );
}

/** Unacknowledged messages of a tenant after `afterSeq`, due by `now`, in sequence order. */
export async function pendingWith(pool: Pool, tenantId: string, afterSeq: number, limit: number, now: number): Promise<StoredInbound[]> {
  const { rows } = await pool.query<{
    seq: string;
    received_at: string;
    method: string;
    path: string;
    headers: string;
    body: Buffer;
    body_hash: string;
    priority: number;
    activity_type: string;
    attempts: number;
  }>(
    `SELECT seq, received_at, method, path, headers, body, body_hash, priority, activity_type, attempts
     FROM inbound WHERE tenant_id = $1 AND seq > $2 AND due_at <= $3 ORDER BY seq LIMIT $4`,
    [tenantId, afterSeq, now, limit],
  );
  return rows.map((r) => ({
    seq: Number(r.seq),
    receivedAt: Number(r.received_at),
    method: r.method,
    path: r.path,
    headers: parseHeaders(r.headers),
    body: r.body,
    bodyHash: r.body_hash,
    priority: r.priority,
    activityType: r.activity_type,
    attempts: r.attempts,
  }));
}

/**
 * What `RelayStore.expire` does: one transaction per tenant with something to expire (taking
 * its row first, like accept), then the old repeat hashes.
 */
export async function expireWith(pool: Pool, before: number, dedupeBefore: number): Promise<number> {
  const { rows } = await pool.query<{ tenant_id: string }>('SELECT DISTINCT tenant_id FROM inbound WHERE received_at < $1', [before]);
  let removed = 0;
  for (const { tenant_id: tenantId } of rows) {
    removed += await transaction(pool, async (client) => {
      const locked = await client.query('SELECT 1 FROM tenants WHERE id = $1 FOR NO KEY UPDATE', [tenantId]);
      if (locked.rowCount === 0) return 0;
      const gone = await client.query<{ count: string }>(
        `WITH gone AS (DELETE FROM inbound WHERE tenant_id = $1 AND received_at < $2 RETURNING bytes),
           totals AS (SELECT COUNT(*) AS count, COALESCE(SUM(bytes), 0) AS bytes FROM gone),
           counted AS (
             UPDATE tenants SET backlog_count = backlog_count - totals.count, backlog_bytes = backlog_bytes - totals.bytes
             FROM totals WHERE id = $1
           )
         SELECT count FROM totals`,
        [tenantId, before],
      );
      const count = Number(gone.rows[0]?.count ?? 0);
      if (count > 0) await countShed(client, tenantId, new Map([['expired', count]]));
      return count;
    });
  }
  await pool.query('DELETE FROM seen WHERE received_at < $1', [dedupeBefore]);
  return removed;
}

/** Every tenant with its usage, by host. */
export async function listTenantsWith(pool: Pool): Promise<TenantUsage[]> {
  const tenants = await pool.query<TenantRow & { backlog_count: string; backlog_bytes: string; cache_bytes: string }>(
    `SELECT ${TENANT_COLUMNS}, backlog_count, backlog_bytes,
       (SELECT COALESCE(SUM(bytes), 0) FROM cache WHERE cache.tenant_id = tenants.id) AS cache_bytes
     FROM tenants ORDER BY host`,
  );
  const shed = await pool.query<{ tenant_id: string; activity_type: string; count: string }>(
    'SELECT tenant_id, activity_type, count FROM shed_counts ORDER BY activity_type',
  );
  const shedOf = new Map<string, Record<string, number>>();
  for (const row of shed.rows) {
    const counts = shedOf.get(row.tenant_id) ?? {};
    counts[row.activity_type] = Number(row.count);
    shedOf.set(row.tenant_id, counts);
  }
  return tenants.rows.map((row) => ({
    ...toTenant(row),
    backlogCount: Number(row.backlog_count),
    backlogBytes: Number(row.backlog_bytes),
    cacheBytes: Number(row.cache_bytes),
    shed: shedOf.get(row.id) ?? {},
  }));
}
