// The relay's SQLite schema. SQLITE_SCHEMA[i] takes a database from version i to i + 1; a later
// version appends a step (never edits a landed one). Every step is idempotent, so a step cut
// short by a crash is simply run again.

/** Steps from version 0 (an empty file). */
export const SQLITE_SCHEMA: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE IF NOT EXISTS tenants (
    id TEXT PRIMARY KEY,
    host TEXT NOT NULL UNIQUE,
    origin TEXT NOT NULL,
    public_key TEXT,
    enrolled_at INTEGER,
    created_at INTEGER NOT NULL,
    quota_bytes INTEGER NOT NULL,
    -- Whether the instance asked the relay to carry its client API (last login).
    clients INTEGER NOT NULL DEFAULT 0,
    -- SHA-256 hex of the one-time enrolment code; null once used.
    code_hash TEXT UNIQUE,
    code_expires_at INTEGER,
    -- The sequence number the next stored message gets.
    next_seq INTEGER NOT NULL DEFAULT 1,
    -- Kept with every insert and delete of inbound rows, so the quota check reads one row.
    backlog_count INTEGER NOT NULL DEFAULT 0,
    backlog_bytes INTEGER NOT NULL DEFAULT 0
  );

  -- A rowid table: bodies are large, and WITHOUT ROWID suits only small rows.
  CREATE TABLE IF NOT EXISTS inbound (
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    received_at INTEGER NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    headers TEXT NOT NULL,
    body BLOB NOT NULL,
    body_hash TEXT NOT NULL,
    priority INTEGER NOT NULL,
    activity_type TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    due_at INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (tenant_id, seq)
  );
  CREATE INDEX IF NOT EXISTS inbound_shedding ON inbound (tenant_id, priority, seq);
  CREATE INDEX IF NOT EXISTS inbound_received ON inbound (received_at);

  -- Bodies stored lately, by hash: a repeat within the window is not stored again, even once the
  -- first copy was acknowledged.
  CREATE TABLE IF NOT EXISTS seen (
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    body_hash TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, body_hash)
  ) WITHOUT ROWID;
  CREATE INDEX IF NOT EXISTS seen_received ON seen (received_at);

  CREATE TABLE IF NOT EXISTS shed_counts (
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    activity_type TEXT NOT NULL,
    count INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, activity_type)
  ) WITHOUT ROWID;

  CREATE TABLE IF NOT EXISTS cache (
    tenant_id TEXT NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
    key TEXT NOT NULL,
    status INTEGER NOT NULL,
    content_type TEXT NOT NULL,
    body BLOB NOT NULL,
    bytes INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    PRIMARY KEY (tenant_id, key)
  );

  CREATE TABLE IF NOT EXISTS tunnels (
    tenant_id TEXT PRIMARY KEY REFERENCES tenants (id) ON DELETE CASCADE,
    node_id TEXT NOT NULL,
    claimed_at INTEGER NOT NULL
  ) WITHOUT ROWID;

  CREATE TABLE IF NOT EXISTS nodes (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    seen_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  `,
];
