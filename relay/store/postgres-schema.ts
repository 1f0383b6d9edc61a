// The relay's PostgreSQL schema. POSTGRES_SCHEMA[i] takes a database from version i to i + 1; a
// later version appends a step (never edits a landed one). Several relay processes may start at
// once: the steps run under an advisory lock, and each is idempotent.

/** Key of the advisory lock held while the schema is brought up to date ("hearth-relay"). */
export const SCHEMA_LOCK = 0x6865_6172_7468;

/** The table holding the schema version, created before any step. */
export const SCHEMA_TABLE = 'CREATE TABLE IF NOT EXISTS relay_schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)';

/** Steps from version 0 (an empty database). */
export const POSTGRES_SCHEMA: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  CREATE TABLE IF NOT EXISTS tenants (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL UNIQUE,
    origin TEXT NOT NULL,
    public_key TEXT,
    enrolled_at BIGINT,
    created_at BIGINT NOT NULL,
    quota_bytes BIGINT NOT NULL,
    -- Whether the instance asked the relay to carry its client API (last login).
    clients BOOLEAN NOT NULL DEFAULT FALSE,
    -- SHA-256 hex of the one-time enrolment code; null once used.
    code_hash TEXT UNIQUE,
    code_expires_at BIGINT,
    -- The sequence number the next stored message gets. Its row lock, held by an accept until it
    -- commits, orders the tenant's accepts across processes: sequence order is commit order.
    next_seq BIGINT NOT NULL DEFAULT 1,
    -- Kept with every insert and delete of inbound rows, so the quota check reads one row.
    backlog_count BIGINT NOT NULL DEFAULT 0,
    backlog_bytes BIGINT NOT NULL DEFAULT 0
  );

  CREATE TABLE IF NOT EXISTS inbound (
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    seq BIGINT NOT NULL,
    received_at BIGINT NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    headers TEXT NOT NULL,
    body BYTEA NOT NULL,
    body_hash TEXT NOT NULL,
    priority SMALLINT NOT NULL,
    activity_type TEXT NOT NULL,
    bytes BIGINT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    due_at BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, seq)
  );
  CREATE INDEX IF NOT EXISTS inbound_shedding ON inbound (tenant_id, priority, seq);
  CREATE INDEX IF NOT EXISTS inbound_received ON inbound (received_at);

  -- Bodies stored lately, by hash: a repeat within the window is not stored again, even once the
  -- first copy was acknowledged.
  CREATE TABLE IF NOT EXISTS seen (
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    body_hash TEXT NOT NULL,
    received_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, body_hash)
  );
  CREATE INDEX IF NOT EXISTS seen_received ON seen (received_at);

  CREATE TABLE IF NOT EXISTS shed_counts (
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    activity_type TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, activity_type)
  );

  CREATE TABLE IF NOT EXISTS cache (
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    status SMALLINT NOT NULL,
    content_type TEXT NOT NULL,
    body BYTEA NOT NULL,
    bytes BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (tenant_id, key)
  );

  CREATE TABLE IF NOT EXISTS tunnels (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    node_id TEXT NOT NULL,
    claimed_at BIGINT NOT NULL
  );

  CREATE TABLE IF NOT EXISTS nodes (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    seen_at BIGINT NOT NULL
  );
  `,
];
