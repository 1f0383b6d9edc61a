// The relay's storage on SQLite: one process, one file, for a relay run by one person or a family.
import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import type { Database as SqliteDatabase, Statement } from 'better-sqlite3';
import { cacheBytesOf, deliverSignal, parseHeaders, SchemaTooNewError, TENANT_COLUMNS, toTenant, UnknownTenantError, type TenantRow } from './common.js';
import { GroupCommit, lockStore, openWal } from './sqlite-commit.js';
import { SQLITE_SCHEMA } from './sqlite-schema.js';
import { acceptIn, expireIn, listTenantsIn, type InboundRow } from './sqlite-queue.js';
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

/**
 * Opens (creating if needed) the relay's SQLite database: WAL, foreign keys, a busy timeout, the
 * schema brought up to date, and (unless `lock` is false) this process's lock on it: a second
 * relay process on the same file fails with `StoreLockedError`. Writes are group-committed and
 * resolve once on disk. `lock: false` is for short admin commands (`tenant add`) beside a running
 * relay: they share the file through SQLite's own locking, and their signals reach no one.
 */
export async function openSqliteStore(file: string, options: { lock?: boolean } = {}): Promise<RelayStore> {
  const lock = options.lock === false ? { release: () => undefined } : lockStore(file);
  let db: SqliteDatabase | null = null;
  try {
    db = new Database(file);
    // The group commit flushes the WAL itself after each commit (see GroupCommit): NORMAL here,
    // FULL in effect. Checkpoints still sync under NORMAL.
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
    migrate(db);
    const wal = await openWal(file);
    return new SqliteStore(db, new GroupCommit(db, wal), async () => {
      await wal.close();
      lock.release();
    });
  } catch (err) {
    db?.close();
    lock.release();
    throw err;
  }
}

/** Brings the schema to the latest version this relay knows, one step per transaction. */
function migrate(db: SqliteDatabase): void {
  db.exec('CREATE TABLE IF NOT EXISTS relay_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)');
  const current = () => (db.prepare('SELECT version FROM relay_schema WHERE id = 1').pluck().get() as number | undefined) ?? 0;
  const found = current();
  if (found > SQLITE_SCHEMA.length) throw new SchemaTooNewError(found, SQLITE_SCHEMA.length);
  for (let version = found; version < SQLITE_SCHEMA.length; version++) {
    db.transaction(() => {
      db.exec(SQLITE_SCHEMA[version] as string);
      db.prepare('INSERT INTO relay_schema (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version').run(version + 1);
    }).immediate();
  }
  // The schema is committed with synchronous=NORMAL; make it durable with a full checkpoint.
  db.pragma('wal_checkpoint(FULL)');
}

class SqliteStore implements RelayStore {
  readonly kind = 'sqlite' as const;
  private readonly statements = new Map<string, Statement>();
  private readonly listeners = new Set<(signal: RelaySignal) => void>();
  private closed = false;

  constructor(
    private readonly db: SqliteDatabase,
    private readonly commit: GroupCommit,
    private readonly release: () => Promise<void>,
  ) {}

  /** A prepared statement, cached by its text. */
  private sql(text: string): Statement {
    let stmt = this.statements.get(text);
    if (!stmt) {
      stmt = this.db.prepare(text);
      this.statements.set(text, stmt);
    }
    return stmt;
  }

  private write<T>(fn: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new Error('the relay store is closed'));
    return this.commit.write(fn);
  }

  async getMeta(key: string): Promise<string | null> {
    return (this.sql('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined) ?? null;
  }

  initMeta(key: string, value: string): Promise<string> {
    return this.write(() => {
      this.sql('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING').run(key, value);
      return this.sql('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string;
    });
  }

  addTenant(input: { host: string; origin: string; codeHash: string; codeExpiresAt: number; quotaBytes: number; now: number }): Promise<Tenant> {
    const host = input.host.toLowerCase();
    return this.write(() => {
      const row = this.sql(
        `INSERT INTO tenants (id, host, origin, code_hash, code_expires_at, quota_bytes, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (host) DO NOTHING RETURNING ${TENANT_COLUMNS}`,
      ).get(randomUUID(), host, input.origin, input.codeHash, input.codeExpiresAt, input.quotaBytes, input.now) as TenantRow | undefined;
      if (!row) throw new TenantExistsError(host);
      return toTenant(row);
    });
  }

  renewCode(host: string, codeHash: string, codeExpiresAt: number): Promise<boolean> {
    return this.write(
      () => this.sql('UPDATE tenants SET code_hash = ?, code_expires_at = ? WHERE host = ?').run(codeHash, codeExpiresAt, host.toLowerCase()).changes > 0,
    );
  }

  async tenantByHost(host: string): Promise<Tenant | null> {
    const row = this.sql(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE host = ?`).get(host.toLowerCase()) as TenantRow | undefined;
    return row ? toTenant(row) : null;
  }

  async tenantById(id: string): Promise<Tenant | null> {
    const row = this.sql(`SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = ?`).get(id) as TenantRow | undefined;
    return row ? toTenant(row) : null;
  }

  async listTenants(): Promise<TenantUsage[]> {
    return listTenantsIn(this.db);
  }

  removeTenant(host: string): Promise<boolean> {
    // Foreign keys cascade to the queue, the repeat hashes, the counts, the cache and the tunnel.
    return this.write(() => this.sql('DELETE FROM tenants WHERE host = ?').run(host.toLowerCase()).changes > 0);
  }

  setQuota(host: string, quotaBytes: number): Promise<boolean> {
    return this.write(() => this.sql('UPDATE tenants SET quota_bytes = ? WHERE host = ?').run(quotaBytes, host.toLowerCase()).changes > 0);
  }

  tenantsWithBacklog(): Promise<Set<string>> {
    const rows = this.sql('SELECT id FROM tenants WHERE backlog_count > 0').all() as { id: string }[];
    return Promise.resolve(new Set(rows.map((r) => r.id)));
  }

  async setClients(tenantId: string, clients: boolean): Promise<void> {
    await this.write(() => this.sql('UPDATE tenants SET clients = ? WHERE id = ?').run(clients ? 1 : 0, tenantId));
  }

  enrol(codeHash: string, publicKey: string, now: number): Promise<Tenant | null> {
    return this.write(() => {
      const row = this.sql(
        `UPDATE tenants SET public_key = ?, enrolled_at = ?, code_hash = NULL, code_expires_at = NULL
         WHERE code_hash = ? AND code_expires_at > ? RETURNING ${TENANT_COLUMNS}`,
      ).get(publicKey, now, codeHash, now) as TenantRow | undefined;
      return row ? toTenant(row) : null;
    });
  }

  accept(tenantId: string, message: InboundMessage, limits: { quotaBytes: number; dedupeSince: number }): Promise<AcceptOutcome> {
    return this.write(() => acceptIn((text) => this.sql(text), tenantId, message, limits));
  }

  async pending(tenantId: string, afterSeq: number, limit: number, now: number): Promise<StoredInbound[]> {
    const rows = this.sql(
      `SELECT seq, received_at, method, path, headers, body, body_hash, priority, activity_type, attempts
       FROM inbound WHERE tenant_id = ? AND seq > ? AND due_at <= ? ORDER BY seq LIMIT ?`,
    ).all(tenantId, afterSeq, now, limit) as InboundRow[];
    return rows.map((r) => ({
      seq: r.seq,
      receivedAt: r.received_at,
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

  ack(tenantId: string, seqs: readonly number[]): Promise<void> {
    if (seqs.length === 0) return Promise.resolve();
    return this.write(() => {
      const remove = this.sql('DELETE FROM inbound WHERE tenant_id = ? AND seq = ? RETURNING bytes').pluck();
      let count = 0;
      let bytes = 0;
      for (const seq of new Set(seqs)) {
        const gone = remove.get(tenantId, seq) as number | undefined;
        if (gone === undefined) continue;
        count += 1;
        bytes += gone;
      }
      if (count > 0) {
        this.sql('UPDATE tenants SET backlog_count = backlog_count - ?, backlog_bytes = backlog_bytes - ? WHERE id = ?').run(count, bytes, tenantId);
      }
    });
  }

  defer(tenantId: string, seq: number, until: number): Promise<void> {
    return this.write(() => {
      this.sql('UPDATE inbound SET due_at = ?, attempts = attempts + 1 WHERE tenant_id = ? AND seq = ?').run(until, tenantId, seq);
    });
  }

  async backlog(tenantId: string): Promise<Backlog> {
    const row = this.sql('SELECT backlog_count, backlog_bytes FROM tenants WHERE id = ?').get(tenantId) as
      | { backlog_count: number; backlog_bytes: number }
      | undefined;
    if (!row) throw new UnknownTenantError(tenantId);
    const oldest = this.sql('SELECT MIN(received_at) FROM inbound WHERE tenant_id = ?').pluck().get(tenantId) as number | null;
    return { count: row.backlog_count, bytes: row.backlog_bytes, oldestAt: oldest };
  }

  async shedCounts(tenantId: string): Promise<Record<string, number>> {
    const rows = this.sql('SELECT activity_type, count FROM shed_counts WHERE tenant_id = ? ORDER BY activity_type').all(tenantId) as {
      activity_type: string;
      count: number;
    }[];
    return Object.fromEntries(rows.map((r) => [r.activity_type, r.count]));
  }

  expire(before: number, dedupeBefore: number): Promise<number> {
    return this.write(() => expireIn((text) => this.sql(text), before, dedupeBefore));
  }

  putCache(tenantId: string, entry: CacheEntry): Promise<void> {
    return this.write(() => {
      this.sql(
        `INSERT INTO cache (tenant_id, key, status, content_type, body, bytes, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (tenant_id, key) DO UPDATE SET status = excluded.status, content_type = excluded.content_type,
           body = excluded.body, bytes = excluded.bytes, updated_at = excluded.updated_at`,
      ).run(tenantId, entry.key, entry.status, entry.contentType, entry.body, cacheBytesOf(entry.body), entry.updatedAt);
    });
  }

  async getCache(tenantId: string, key: string): Promise<CacheEntry | null> {
    const row = this.sql('SELECT key, status, content_type, body, updated_at FROM cache WHERE tenant_id = ? AND key = ?').get(tenantId, key) as
      | { key: string; status: number; content_type: string; body: Buffer; updated_at: number }
      | undefined;
    if (!row) return null;
    return { key: row.key, status: row.status === 410 ? 410 : 200, contentType: row.content_type, body: row.body, updatedAt: row.updated_at };
  }

  dropCache(tenantId: string, key: string): Promise<void> {
    return this.write(() => {
      this.sql('DELETE FROM cache WHERE tenant_id = ? AND key = ?').run(tenantId, key);
    });
  }

  async cacheBytes(tenantId: string): Promise<number> {
    return this.sql('SELECT COALESCE(SUM(bytes), 0) FROM cache WHERE tenant_id = ?').pluck().get(tenantId) as number;
  }

  claimTunnel(tenantId: string, nodeId: string, now: number): Promise<void> {
    return this.write(() => {
      // An older claim arriving late does not replace a newer one.
      this.sql(
        `INSERT INTO tunnels (tenant_id, node_id, claimed_at) VALUES (?, ?, ?)
         ON CONFLICT (tenant_id) DO UPDATE SET node_id = excluded.node_id, claimed_at = excluded.claimed_at
         WHERE excluded.claimed_at >= tunnels.claimed_at`,
      ).run(tenantId, nodeId, now);
    });
  }

  releaseTunnel(tenantId: string, nodeId: string): Promise<void> {
    return this.write(() => {
      this.sql('DELETE FROM tunnels WHERE tenant_id = ? AND node_id = ?').run(tenantId, nodeId);
    });
  }

  async tunnelHolder(tenantId: string): Promise<string | null> {
    return (this.sql('SELECT node_id FROM tunnels WHERE tenant_id = ?').pluck().get(tenantId) as string | undefined) ?? null;
  }

  heartbeatNode(node: RelayNode): Promise<void> {
    return this.write(() => {
      this.sql('INSERT INTO nodes (id, url, seen_at) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET url = excluded.url, seen_at = excluded.seen_at').run(
        node.id,
        node.url,
        node.seenAt,
      );
    });
  }

  async nodeById(id: string): Promise<RelayNode | null> {
    const row = this.sql('SELECT id, url, seen_at FROM nodes WHERE id = ?').get(id) as { id: string; url: string; seen_at: number } | undefined;
    return row ? { id: row.id, url: row.url, seenAt: row.seen_at } : null;
  }

  // One process holds the file (see lockStore), so signals never leave it.
  async signal(signal: RelaySignal): Promise<void> {
    deliverSignal(this.listeners, signal);
  }

  async onSignal(listener: (signal: RelaySignal) => void): Promise<() => Promise<void>> {
    // Wrapped, so that the same function may listen twice and stop each listening on its own.
    const own = (signal: RelaySignal) => listener(signal);
    this.listeners.add(own);
    return async () => {
      this.listeners.delete(own);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    await this.commit.idle();
    this.statements.clear();
    this.db.close();
    await this.release();
  }
}
