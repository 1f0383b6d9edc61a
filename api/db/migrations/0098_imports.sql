-- Moving house: imports of Mastodon's CSV files (follows, lists, blocks, mutes, domain blocks,
-- bookmarks), run by a background job that survives restarts.

-- One uploaded file. `state`: scheduled (waiting for the job), in_progress, finished, cancelled.
-- `prepared` is set once overwrite mode has removed what the file does not name (rows are only
-- worked on after that). `local_domain` is the host the uploader reached the instance at, so that
-- `user@that-host` rows name local accounts even when the job runs outside any request.
-- The counters move with the rows, in the same statements.
CREATE TABLE imports (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  type TEXT NOT NULL CHECK (type IN ('following', 'lists', 'blocks', 'mutes', 'domain_blocks', 'bookmarks')),
  mode TEXT NOT NULL CHECK (mode IN ('merge', 'overwrite')),
  state TEXT NOT NULL CHECK (state IN ('scheduled', 'in_progress', 'finished', 'cancelled')),
  prepared INTEGER NOT NULL DEFAULT 0 CHECK (prepared IN (0, 1)),
  local_domain TEXT NOT NULL,
  total INTEGER NOT NULL,
  processed INTEGER NOT NULL DEFAULT 0,
  imported INTEGER NOT NULL DEFAULT 0,
  failed INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  finished_at INTEGER
) STRICT;

CREATE INDEX imports_account ON imports (account_id, id DESC);
CREATE INDEX imports_unfinished ON imports (id) WHERE state IN ('scheduled', 'in_progress');

-- The rows of a file, stored at upload (`data`: the row's values as JSON), each marked done as the
-- job gets to it: `imported`, or `failed` with a reason code and a message for the person.
CREATE TABLE import_rows (
  import_id INTEGER NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,                  -- the row's line in the file (1 is the first line)
  data TEXT NOT NULL,
  state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'imported', 'failed')),
  reason TEXT,
  message TEXT,
  PRIMARY KEY (import_id, position)
) STRICT, WITHOUT ROWID;

CREATE INDEX import_rows_pending ON import_rows (import_id, position) WHERE state = 'pending';
CREATE INDEX import_rows_failed ON import_rows (import_id, position) WHERE state = 'failed';
