-- Remote media copies (the `cache` remote media setting): for each remote attachment, avatar,
-- header or custom emoji, which remote URL the stored copy came from, or how far its download got.
-- A record with no row here (or whose remote URL changed) still needs a copy, which is how the
-- background job finds its work again after a restart.
CREATE TABLE remote_media_copies (
  kind TEXT NOT NULL CHECK (kind IN ('attachment', 'avatar', 'header', 'emoji')),
  record_id INTEGER NOT NULL,                 -- media_attachments, accounts or custom_emojis id
  source_url TEXT NOT NULL,                   -- the remote URL this row is about
  state TEXT NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL DEFAULT 0, -- when a pending download may be tried again
  last_error TEXT,
  keys TEXT NOT NULL DEFAULT '[]',            -- JSON array of the storage keys of the copy
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (kind, record_id)
) STRICT;

-- The job's scan looks for remote attachments without a stored file.
CREATE INDEX media_attachments_remote_uncached ON media_attachments (id) WHERE remote_url IS NOT NULL AND file_key IS NULL;
