-- Federation: Fedify's key-value store and its durable message queue (inbox, outbox, fanout).

-- Fedify's cache and bookkeeping (remote documents, public keys, idempotence, signature specs).
-- `key` is the JSON text of the key array, so that a prefix of the array is a prefix of the text.
CREATE TABLE federation_kv (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL,                        -- JSON
  expires_at INTEGER                          -- NULL: never expires
) STRICT;

CREATE INDEX federation_kv_expires ON federation_kv (expires_at) WHERE expires_at IS NOT NULL;

-- Work waiting for the federation worker. A message is claimed by setting `locked_until`; a worker
-- that dies leaves the lease to expire and the message is taken again after a restart.
CREATE TABLE federation_queue (
  id INTEGER PRIMARY KEY,
  queue TEXT NOT NULL CHECK (queue IN ('inbox', 'outbox', 'fanout')),
  message TEXT NOT NULL,                      -- JSON, opaque (Fedify's Message)
  ordering_key TEXT,                          -- messages with the same key run one at a time, in order
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  locked_until INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX federation_queue_due ON federation_queue (queue, next_attempt_at);
CREATE INDEX federation_queue_ordering ON federation_queue (ordering_key, id) WHERE ordering_key IS NOT NULL;
