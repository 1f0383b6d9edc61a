// The rig of test/relay/store.test.ts: the two backends behind one face (a fresh database per
// test, raw SQL beside the store for what the interface does not show), and message builders.
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { PRIORITIES } from '../../relay/protocol.js';
import { inboundBytes } from '../../relay/store/common.js';
import { openPostgresStore } from '../../relay/store/postgres.js';
import { openSqliteStore } from '../../relay/store/sqlite.js';
import type { InboundMessage, RelayStore } from '../../relay/store/types.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

/** One fresh database of a backend. */
export interface TestDatabase {
  /** The SQLite file or the PostgreSQL URL. */
  target: string;
  /** Opens a store on it (again and again: a second process, a restart). */
  open(): Promise<RelayStore>;
  /** Runs SQL straight on the database, beside any open store; `?` placeholders for both. */
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
}

/** A storage backend under test. */
export interface Backend {
  name: 'sqlite' | 'postgres';
  setup(): Promise<void>;
  teardown(): Promise<void>;
  fresh(): Promise<TestDatabase>;
}

function sqliteBackend(): Backend {
  const dirs: string[] = [];
  return {
    name: 'sqlite',
    async setup() {},
    async teardown() {
      for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    },
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), 'hearth-relay-store-'));
      dirs.push(dir);
      const file = join(dir, 'relay.sqlite3');
      return {
        target: file,
        open: () => openSqliteStore(file),
        async query(sql, params = []) {
          const db = new Database(file);
          try {
            const stmt = db.prepare(sql);
            return stmt.reader ? (stmt.all(...params) as Record<string, unknown>[]) : (stmt.run(...params), []);
          } finally {
            db.close();
          }
        },
      };
    },
  };
}

/** Runs SQL on a PostgreSQL database with `?` placeholders, on a connection of its own. */
async function pgQuery(url: string, sql: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  let n = 0;
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as Record<string, unknown>[];
  } finally {
    await client.end();
  }
}

/**
 * PostgreSQL: one server and one database for the test file; each test starts from empty tables
 * (the schema stays, which the store's opening checks and leaves be: much quicker than a new
 * database per test).
 */
function postgresBackend(): Backend {
  let server: TestPostgres | null = null;
  let url: string | null = null;
  return {
    name: 'postgres',
    async setup() {
      server = await startPostgres();
      url = await server.createDatabase();
    },
    async teardown() {
      await server?.stop();
      server = null;
    },
    async fresh() {
      const target = url;
      if (target === null) throw new Error('the PostgreSQL server did not start (see the first failure)');
      const tables = await pgQuery(target, "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> 'relay_schema'");
      if (tables.length > 0) await pgQuery(target, `TRUNCATE ${tables.map((t) => String(t.tablename)).join(', ')} CASCADE`);
      return { target, open: () => openPostgresStore(target), query: (sql, params) => pgQuery(target, sql, params) };
    },
  };
}

/** Both backends, for describe.each. */
export const backends: Backend[] = [sqliteBackend(), postgresBackend()];

/** A fixed point in time the tests count from. */
export const T0 = Date.UTC(2025, 0, 1);

const PATH = '/users/kim/inbox';
const HEADERS: [string, string][] = [
  ['Host', 'kim.relay.test'],
  ['Content-Type', 'application/activity+json'],
];
/** What a message costs against the quota beyond its body. */
const OVERHEAD = inboundBytes({ path: PATH, headers: HEADERS, body: Buffer.alloc(0) });

/** SHA-256 hex, as the relay hashes bodies. */
export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

let counter = 0;

/**
 * An inbox delivery of an activity type. `bytes` (default 300) is what it counts for against
 * the quota: the body is padded to make it so. `id` makes the body (and its hash) repeatable.
 */
export function message(
  activityType: string,
  options: { priority?: number; bytes?: number; id?: string; receivedAt?: number } = {},
): InboundMessage {
  const priority = options.priority ?? priorityOf(activityType);
  const id = options.id ?? `https://peer.test/activities/${++counter}`;
  const head = JSON.stringify({ id, type: activityType, pad: '' });
  const size = (options.bytes ?? 300) - OVERHEAD;
  if (size < head.length) throw new Error(`a ${activityType} message cannot be that small`);
  const body = Buffer.from(head.replace('"pad":""', `"pad":"${'x'.repeat(size - head.length)}"`));
  return {
    receivedAt: options.receivedAt ?? T0,
    method: 'POST',
    path: PATH,
    headers: HEADERS,
    body,
    bodyHash: sha256(body),
    priority,
    activityType,
  };
}

/** The priority the relay gives an activity type (for the tests' messages). */
function priorityOf(type: string): number {
  if (type === 'Like' || type === 'Announce' || type === 'EmojiReact') return PRIORITIES.low;
  if (['Follow', 'Undo', 'Delete', 'Move'].includes(type)) return PRIORITIES.keep;
  return PRIORITIES.normal;
}

/** Limits that never shed nor find repeats older than T0. */
export const ROOMY = { quotaBytes: 1e12, dedupeSince: T0 - 1 } as const;

/** Adds a tenant with an unexpired code; returns its id. */
export async function addTenant(store: RelayStore, host: string, quotaBytes = 1e9): Promise<string> {
  const tenant = await store.addTenant({ host, origin: `https://${host}`, codeHash: sha256(`code-${host}`), codeExpiresAt: T0 + 3_600_000, quotaBytes, now: T0 });
  return tenant.id;
}

/** Seqs of a tenant's whole queue, in order (all due). */
export async function queued(store: RelayStore, tenantId: string): Promise<number[]> {
  return (await store.pending(tenantId, 0, 1_000_000, Number.MAX_SAFE_INTEGER)).map((m) => m.seq);
}

/** What tests registered outside the suite's body reach of it. */
export interface SuiteContext {
  db(): TestDatabase;
  /** The suite's open store. */
  store(): RelayStore;
  /** Replaces the suite's store (closed after the test). */
  setStore(store: RelayStore): void;
  /** Another store on the same database, closed after the test. */
  another(): Promise<RelayStore>;
}

/** Waits until `check` holds (polled every 20 ms), failing after `timeoutMs`. */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
