// The relay's storage on PostgreSQL: many tenants, several relay processes sharing one database
// behind a load balancer, LISTEN/NOTIFY to wake the process holding a tenant's tunnel.
import { randomUUID } from 'node:crypto';
import { Pool, type PoolClient, type PoolConfig } from 'pg';
import { cacheBytesOf, SchemaTooNewError, TENANT_COLUMNS, toTenant, UnknownTenantError, type TenantRow } from './common.js';
import { acceptBatchWith, acceptWith, ackWith, expireWith, listTenantsWith, pendingWith, type AcceptItem } from './postgres-queue.js';
import { POSTGRES_SCHEMA, SCHEMA_LOCK, SCHEMA_TABLE } from './postgres-schema.js';
import { SIGNAL_CHANNEL, SignalListener } from './postgres-signals.js';
import { transaction } from './postgres-tx.js';
import {
  TenantExistsError,
  type AcceptOutcome,
  type Backlog,
  type CacheEntry,
  type InboundMessage,
  type RelayNode,
  type RelaySignal,
  type RelayStore,
  type StoredInbound,
  type Tenant,
  type TenantUsage,
} from './types.js';

/** Connections each process keeps at most. */
const POOL_SIZE = 10;

/** Most accepts of one tenant committed in one transaction (see PostgresStore.accept). */
const ACCEPT_BATCH = 100;

interface AcceptJob extends AcceptItem {
  resolve: (outcome: AcceptOutcome) => void;
  reject: (err: unknown) => void;
}

/**
 * Opens the relay's PostgreSQL store at `url` (`postgres://user:pass@host/db`): a pool of
 * connections, each committing synchronously (a resolved write is durable whatever the server's
 * default), and the schema brought up to date (several processes may start at once).
 */
export async function openPostgresStore(url: string): Promise<RelayStore> {
  const config: PoolConfig = {
    connectionString: url,
    max: POOL_SIZE,
    application_name: 'hearth-relay',
    options: '-c synchronous_commit=on',
  };
  const pool = new Pool(config);
  // An idle connection that breaks (a restarted server) is dropped by the pool; say so.
  pool.on('error', (err: Error) => console.error(`relay store: an idle PostgreSQL connection failed: ${err.message}`));
  try {
    await migrate(pool);
  } catch (err) {
    await pool.end();
    throw err;
  }
  return new PostgresStore(pool, new SignalListener({ connectionString: url, options: config.options }));
}

/** Brings the schema to the latest version this relay knows, under an advisory lock. */
async function migrate(pool: Pool): Promise<void> {
  await transaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [SCHEMA_LOCK]);
    await client.query(SCHEMA_TABLE);
    const found = Number((await client.query<{ version: number }>('SELECT version FROM relay_schema WHERE id = 1')).rows[0]?.version ?? 0);
    if (found > POSTGRES_SCHEMA.length) throw new SchemaTooNewError(found, POSTGRES_SCHEMA.length);
    for (let version = found; version < POSTGRES_SCHEMA.length; version++) {
      await client.query(POSTGRES_SCHEMA[version] as string);
      await client.query('INSERT INTO relay_schema (id, version) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET version = excluded.version', [version + 1]);
    }
  });
}

class PostgresStore implements RelayStore {
  readonly kind = 'postgres' as const;
  private closed = false;
  /** Accepts waiting per tenant; a tenant is in the map while a batch of its accepts runs. */
  private readonly acceptQueues = new Map<string, AcceptJob[]>();
  private readonly draining = new Set<Promise<void>>();

  constructor(
    private readonly pool: Pool,
    private readonly signals: SignalListener,
  ) {}

  private tx<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    return transaction(this.pool, fn);
  }

  async getMeta(key: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]);
    return rows[0]?.value ?? null;
  }

  async initMeta(key: string, value: string): Promise<string> {
    // ON CONFLICT DO NOTHING returns no row when another process won: read theirs.
    const { rows } = await this.pool.query<{ value: string }>(
      `WITH ins AS (INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING RETURNING value)
       SELECT value FROM ins UNION ALL SELECT value FROM meta WHERE key = $1`,
      [key, value],
    );
    const held = rows[0]?.value ?? (await this.getMeta(key));
    // Empty when another process inserted it meanwhile (waited for, but not in this statement's
    // snapshot): the second read sees it.
    if (held === null) throw new Error(`meta ${key} vanished while being set`);
    return held;
  }

  async addTenant(input: { host: string; origin: string; codeHash: string; codeExpiresAt: number; quotaBytes: number; now: number }): Promise<Tenant> {
    const host = input.host.toLowerCase();
    const { rows } = await this.pool.query<TenantRow>(
      `INSERT INTO tenants (id, host, origin, code_hash, code_expires_at, quota_bytes, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (host) DO NOTHING RETURNING ${TENANT_COLUMNS}`,
      [randomUUID(), host, input.origin, input.codeHash, input.codeExpiresAt, input.quotaBytes, input.now],
    );
    const row = rows[0];
    if (!row) throw new TenantExistsError(host);
    return toTenant(row);
  }

  async renewCode(host: string, codeHash: string, codeExpiresAt: number): Promise<boolean> {
    const result = await this.pool.query('UPDATE tenants SET code_hash = $1, code_expires_at = $2 WHERE host = $3', [codeHash, codeExpiresAt, host.toLowerCase()]);
    return (result.rowCount ?? 0) > 0;
  }

  async tenantByHost(host: string): Promise<Tenant | null> {
    const { rows } = await this.pool.query<TenantRow>(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE host = $1`, [host.toLowerCase()]);
    return rows[0] ? toTenant(rows[0]) : null;
  }

  async tenantById(id: string): Promise<Tenant | null> {
    const { rows } = await this.pool.query<TenantRow>(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = $1`, [id]);
    return rows[0] ? toTenant(rows[0]) : null;
  }

  listTenants(): Promise<TenantUsage[]> {
    return listTenantsWith(this.pool);
  }

  async removeTenant(host: string): Promise<boolean> {
    // Foreign keys cascade to the queue, the repeat hashes, the counts, the cache and the tunnel.
    const result = await this.pool.query('DELETE FROM tenants WHERE host = $1', [host.toLowerCase()]);
    return (result.rowCount ?? 0) > 0;
  }

  async setQuota(host: string, quotaBytes: number): Promise<boolean> {
    const result = await this.pool.query('UPDATE tenants SET quota_bytes = $1 WHERE host = $2', [quotaBytes, host.toLowerCase()]);
    return (result.rowCount ?? 0) > 0;
  }

  async tenantsWithBacklog(): Promise<Set<string>> {
    const { rows } = await this.pool.query<{ id: string }>('SELECT id FROM tenants WHERE backlog_count > 0');
    return new Set(rows.map((r) => r.id));
  }

  async setClients(tenantId: string, clients: boolean): Promise<void> {
    await this.pool.query('UPDATE tenants SET clients = $1 WHERE id = $2', [clients, tenantId]);
  }

  async enrol(codeHash: string, publicKey: string, now: number): Promise<Tenant | null> {
    const { rows } = await this.pool.query<TenantRow>(
      `UPDATE tenants SET public_key = $1, enrolled_at = $2, code_hash = NULL, code_expires_at = NULL
       WHERE code_hash = $3 AND code_expires_at > $2 RETURNING ${TENANT_COLUMNS}`,
      [publicKey, now, codeHash],
    );
    return rows[0] ? toTenant(rows[0]) : null;
  }

  /**
   * A tenant's accepts hold its row lock until they commit, so one tenant's accepts commit one
   * after another, each waiting for its own flush to disk: a few hundred a second at most. So
   * accepts of a tenant that arrive while one of its transactions is in flight wait together and
   * go into the next transaction (up to ACCEPT_BATCH), each resolving once that committed.
   */
  accept(tenantId: string, message: InboundMessage, limits: { quotaBytes: number; dedupeSince: number }): Promise<AcceptOutcome> {
    if (this.closed) return Promise.reject(new Error('the relay store is closed'));
    return new Promise<AcceptOutcome>((resolve, reject) => {
      const job = { message, limits, resolve, reject };
      const queue = this.acceptQueues.get(tenantId);
      if (queue) {
        queue.push(job);
        return;
      }
      this.acceptQueues.set(tenantId, [job]);
      const drain = this.drainAccepts(tenantId).finally(() => this.draining.delete(drain));
      this.draining.add(drain);
    });
  }

  private async drainAccepts(tenantId: string): Promise<void> {
    for (;;) {
      const queue = this.acceptQueues.get(tenantId) ?? [];
      if (queue.length === 0) {
        this.acceptQueues.delete(tenantId);
        return;
      }
      const batch = queue.splice(0, ACCEPT_BATCH);
      try {
        const outcomes = await this.tx(async (client) => {
          const fast = await acceptBatchWith(client, tenantId, batch);
          if (fast) return fast;
          // Shedding: one after another in the one transaction, each seeing what the previous did.
          const out: AcceptOutcome[] = [];
          for (const job of batch) out.push(await acceptWith(client, tenantId, job.message, job.limits));
          return out;
        });
        batch.forEach((job, i) => job.resolve(outcomes[i] as AcceptOutcome));
      } catch (err) {
        if (batch.length === 1) {
          batch[0]?.reject(err);
          continue;
        }
        // A message that fails must not fail the others with it: each alone, in order.
        for (const job of batch) {
          await this.tx((client) => acceptWith(client, tenantId, job.message, job.limits)).then(job.resolve, job.reject);
        }
      }
    }
  }

  pending(tenantId: string, afterSeq: number, limit: number, now: number): Promise<StoredInbound[]> {
    return pendingWith(this.pool, tenantId, afterSeq, limit, now);
  }

  async ack(tenantId: string, seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return;
    await this.tx((client) => ackWith(client, tenantId, seqs));
  }

  async defer(tenantId: string, seq: number, until: number): Promise<void> {
    await this.pool.query('UPDATE inbound SET due_at = $1, attempts = attempts + 1 WHERE tenant_id = $2 AND seq = $3', [until, tenantId, seq]);
  }

  async backlog(tenantId: string): Promise<Backlog> {
    const { rows } = await this.pool.query<{ backlog_count: string; backlog_bytes: string; oldest: string | null }>(
      'SELECT backlog_count, backlog_bytes, (SELECT MIN(received_at) FROM inbound WHERE tenant_id = $1) AS oldest FROM tenants WHERE id = $1',
      [tenantId],
    );
    const row = rows[0];
    if (!row) throw new UnknownTenantError(tenantId);
    return { count: Number(row.backlog_count), bytes: Number(row.backlog_bytes), oldestAt: row.oldest === null ? null : Number(row.oldest) };
  }

  async shedCounts(tenantId: string): Promise<Record<string, number>> {
    const { rows } = await this.pool.query<{ activity_type: string; count: string }>(
      'SELECT activity_type, count FROM shed_counts WHERE tenant_id = $1 ORDER BY activity_type',
      [tenantId],
    );
    return Object.fromEntries(rows.map((r) => [r.activity_type, Number(r.count)]));
  }

  expire(before: number, dedupeBefore: number): Promise<number> {
    return expireWith(this.pool, before, dedupeBefore);
  }

  async putCache(tenantId: string, entry: CacheEntry): Promise<void> {
    await this.pool.query(
      `INSERT INTO cache (tenant_id, key, status, content_type, body, bytes, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (tenant_id, key) DO UPDATE SET status = excluded.status, content_type = excluded.content_type,
         body = excluded.body, bytes = excluded.bytes, updated_at = excluded.updated_at`,
      [tenantId, entry.key, entry.status, entry.contentType, entry.body, cacheBytesOf(entry.body), entry.updatedAt],
    );
  }

  async getCache(tenantId: string, key: string): Promise<CacheEntry | null> {
    const { rows } = await this.pool.query<{ key: string; status: number; content_type: string; body: Buffer; updated_at: string }>(
      'SELECT key, status, content_type, body, updated_at FROM cache WHERE tenant_id = $1 AND key = $2',
      [tenantId, key],
    );
    const row = rows[0];
    if (!row) return null;
    return { key: row.key, status: row.status === 410 ? 410 : 200, contentType: row.content_type, body: row.body, updatedAt: Number(row.updated_at) };
  }

  async dropCache(tenantId: string, key: string): Promise<void> {
    await this.pool.query('DELETE FROM cache WHERE tenant_id = $1 AND key = $2', [tenantId, key]);
  }

  async cacheBytes(tenantId: string): Promise<number> {
    const { rows } = await this.pool.query<{ bytes: string }>('SELECT COALESCE(SUM(bytes), 0) AS bytes FROM cache WHERE tenant_id = $1', [tenantId]);
    return Number(rows[0]?.bytes ?? 0);
  }

  async claimTunnel(tenantId: string, nodeId: string, now: number): Promise<void> {
    // An older claim arriving late does not replace a newer one.
    await this.pool.query(
      `INSERT INTO tunnels (tenant_id, node_id, claimed_at) VALUES ($1, $2, $3)
       ON CONFLICT (tenant_id) DO UPDATE SET node_id = excluded.node_id, claimed_at = excluded.claimed_at
       WHERE excluded.claimed_at >= tunnels.claimed_at`,
      [tenantId, nodeId, now],
    );
  }

  async releaseTunnel(tenantId: string, nodeId: string): Promise<void> {
    await this.pool.query('DELETE FROM tunnels WHERE tenant_id = $1 AND node_id = $2', [tenantId, nodeId]);
  }

  async tunnelHolder(tenantId: string): Promise<string | null> {
    const { rows } = await this.pool.query<{ node_id: string }>('SELECT node_id FROM tunnels WHERE tenant_id = $1', [tenantId]);
    return rows[0]?.node_id ?? null;
  }

  async heartbeatNode(node: RelayNode): Promise<void> {
    await this.pool.query('INSERT INTO nodes (id, url, seen_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET url = excluded.url, seen_at = excluded.seen_at', [
      node.id,
      node.url,
      node.seenAt,
    ]);
  }

  async nodeById(id: string): Promise<RelayNode | null> {
    const { rows } = await this.pool.query<{ id: string; url: string; seen_at: string }>('SELECT id, url, seen_at FROM nodes WHERE id = $1', [id]);
    const row = rows[0];
    return row ? { id: row.id, url: row.url, seenAt: Number(row.seen_at) } : null;
  }

  async signal(signal: RelaySignal): Promise<void> {
    // Every listening process gets it, this one included (through its own listening connection).
    await this.pool.query('SELECT pg_notify($1, $2)', [SIGNAL_CHANNEL, JSON.stringify(signal)]);
  }

  onSignal(listener: (signal: RelaySignal) => void): Promise<() => Promise<void>> {
    return this.signals.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    while (this.draining.size > 0) await Promise.all(this.draining);
    await this.signals.close();
    await this.pool.end();
  }
}
