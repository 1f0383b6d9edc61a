-- Statuses and the social loop: follows, interactions, polls, media, timelines, notifications.
-- Every table treats a status or account as possibly remote (uri, url, domain on accounts).

-- A thread: replies share their root's conversation (Mastodon's `conversation`).
CREATE TABLE conversations (
  id INTEGER PRIMARY KEY,
  uri TEXT UNIQUE,                            -- remote `context`/`conversation`, when known
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE statuses (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  local INTEGER NOT NULL DEFAULT 1,
  uri TEXT,                                   -- ActivityPub id; NULL for local (built from the origin)
  url TEXT,                                   -- remote web page
  visibility TEXT NOT NULL CHECK (visibility IN ('public', 'unlisted', 'private', 'direct')),
  text TEXT NOT NULL DEFAULT '',              -- raw source as typed (local); empty for remote
  content TEXT NOT NULL DEFAULT '',           -- sanitized HTML
  spoiler_text TEXT NOT NULL DEFAULT '',
  sensitive INTEGER NOT NULL DEFAULT 0,
  language TEXT,
  in_reply_to_id INTEGER REFERENCES statuses (id) ON DELETE SET NULL,
  in_reply_to_account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
  in_reply_to_uri TEXT,                       -- parent's uri, kept when the parent is unknown or gone
  reblog_of_id INTEGER REFERENCES statuses (id) ON DELETE CASCADE,
  conversation_id INTEGER REFERENCES conversations (id) ON DELETE SET NULL,
  application_id INTEGER REFERENCES oauth_applications (id) ON DELETE SET NULL,
  replies_count INTEGER NOT NULL DEFAULT 0,
  reblogs_count INTEGER NOT NULL DEFAULT 0,
  favourites_count INTEGER NOT NULL DEFAULT 0,
  edited_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX statuses_uri ON statuses (uri) WHERE uri IS NOT NULL;
CREATE INDEX statuses_account ON statuses (account_id, id DESC);
CREATE INDEX statuses_public ON statuses (visibility, id DESC) WHERE reblog_of_id IS NULL;
CREATE INDEX statuses_in_reply_to ON statuses (in_reply_to_id) WHERE in_reply_to_id IS NOT NULL;
CREATE INDEX statuses_reblog_of ON statuses (reblog_of_id) WHERE reblog_of_id IS NOT NULL;
CREATE UNIQUE INDEX statuses_reblog_once ON statuses (account_id, reblog_of_id) WHERE reblog_of_id IS NOT NULL;
CREATE INDEX statuses_conversation ON statuses (conversation_id) WHERE conversation_id IS NOT NULL;

-- One row per edit (the original version included once a status is first edited), for history.
CREATE TABLE status_edits (
  id INTEGER PRIMARY KEY,
  status_id INTEGER NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  text TEXT NOT NULL DEFAULT '',
  content TEXT NOT NULL DEFAULT '',
  spoiler_text TEXT NOT NULL DEFAULT '',
  sensitive INTEGER NOT NULL DEFAULT 0,
  language TEXT,
  media TEXT NOT NULL DEFAULT '[]',           -- JSON: [{id, description, focus}] in order at that version
  poll TEXT,                                  -- JSON: {options: [title…]} at that version, or NULL
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX status_edits_status ON status_edits (status_id, id);

CREATE TABLE mentions (
  id INTEGER PRIMARY KEY,
  status_id INTEGER NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  silent INTEGER NOT NULL DEFAULT 0,          -- addressed (e.g. a group's followers) but not written in the text
  UNIQUE (status_id, account_id)
) STRICT;

CREATE INDEX mentions_account ON mentions (account_id, status_id DESC);

CREATE TABLE tags (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,                         -- as first written, without '#'
  name_normalized TEXT NOT NULL UNIQUE,       -- lower case, NFKC
  usable INTEGER NOT NULL DEFAULT 1,
  listable INTEGER NOT NULL DEFAULT 1,
  last_status_at INTEGER,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE statuses_tags (
  status_id INTEGER NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  PRIMARY KEY (tag_id, status_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX statuses_tags_status ON statuses_tags (status_id);

-- Uploaded or remote media; status_id is NULL until attached.
CREATE TABLE media_attachments (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  status_id INTEGER REFERENCES statuses (id) ON DELETE SET NULL,
  position INTEGER NOT NULL DEFAULT 0,        -- order within the status
  type TEXT NOT NULL CHECK (type IN ('image', 'gifv', 'video', 'audio', 'unknown')),
  file_key TEXT,                              -- storage key of the processed original
  preview_key TEXT,                           -- storage key of the small preview / thumbnail
  file_content_type TEXT,
  file_size INTEGER,
  remote_url TEXT,
  preview_remote_url TEXT,
  description TEXT,
  focus_x REAL,
  focus_y REAL,
  meta TEXT NOT NULL DEFAULT '{}',            -- JSON: Mastodon's meta object
  blurhash TEXT,
  processing TEXT NOT NULL DEFAULT 'done' CHECK (processing IN ('queued', 'processing', 'done', 'failed')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX media_attachments_status ON media_attachments (status_id, position) WHERE status_id IS NOT NULL;
CREATE INDEX media_attachments_unattached ON media_attachments (account_id, created_at) WHERE status_id IS NULL;

CREATE TABLE polls (
  id INTEGER PRIMARY KEY,
  status_id INTEGER NOT NULL UNIQUE REFERENCES statuses (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  options TEXT NOT NULL,                      -- JSON array of titles
  tallies TEXT NOT NULL,                      -- JSON array of vote counts (remote polls: as last fetched)
  multiple INTEGER NOT NULL DEFAULT 0,
  hide_totals INTEGER NOT NULL DEFAULT 0,
  votes_count INTEGER NOT NULL DEFAULT 0,
  voters_count INTEGER,                       -- NULL when unknown (old remote servers)
  expires_at INTEGER,
  ended_notified INTEGER NOT NULL DEFAULT 0,  -- the end-of-poll notifications were sent
  last_fetched_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX polls_expiry ON polls (expires_at) WHERE ended_notified = 0 AND expires_at IS NOT NULL;

CREATE TABLE poll_votes (
  id INTEGER PRIMARY KEY,
  poll_id INTEGER NOT NULL REFERENCES polls (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  choice INTEGER NOT NULL,
  uri TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (poll_id, account_id, choice)
) STRICT;

CREATE TABLE favourites (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  status_id INTEGER NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
  uri TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, status_id)
) STRICT;

CREATE INDEX favourites_status ON favourites (status_id);
CREATE INDEX favourites_account ON favourites (account_id, id DESC);

CREATE TABLE bookmarks (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  status_id INTEGER NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, status_id)
) STRICT;

CREATE INDEX bookmarks_account ON bookmarks (account_id, id DESC);

CREATE TABLE status_pins (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  status_id INTEGER NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, status_id)
) STRICT;

-- Muted threads: no notifications from replies in them.
CREATE TABLE conversation_mutes (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  PRIMARY KEY (account_id, conversation_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE follows (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,        -- the follower
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE, -- the followed
  show_reblogs INTEGER NOT NULL DEFAULT 1,
  notify INTEGER NOT NULL DEFAULT 0,
  languages TEXT,                             -- JSON array, NULL for all
  uri TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
) STRICT;

CREATE INDEX follows_target ON follows (target_account_id, account_id);

CREATE TABLE follow_requests (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  show_reblogs INTEGER NOT NULL DEFAULT 1,
  notify INTEGER NOT NULL DEFAULT 0,
  languages TEXT,
  uri TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
) STRICT;

CREATE INDEX follow_requests_target ON follow_requests (target_account_id, id DESC);

CREATE TABLE notifications (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,        -- recipient
  from_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  type TEXT NOT NULL,
  status_id INTEGER REFERENCES statuses (id) ON DELETE CASCADE,
  report_id INTEGER,
  group_key TEXT NOT NULL,                    -- v2 grouping key (Mastodon's rules)
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX notifications_account ON notifications (account_id, id DESC);
CREATE INDEX notifications_group ON notifications (account_id, group_key, id DESC);
CREATE INDEX notifications_status ON notifications (status_id) WHERE status_id IS NOT NULL;

-- The materialised home feed (fan-out on write): the statuses (or reblogs) in each user's home.
CREATE TABLE home_feed (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  status_id INTEGER NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
  PRIMARY KEY (account_id, status_id)
) STRICT, WITHOUT ROWID;

-- Per-user feed state: a row with regenerating = 1 while a rebuild runs (GET home answers 206).
CREATE TABLE feed_state (
  account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  regenerating INTEGER NOT NULL DEFAULT 0,
  built_at INTEGER
) STRICT;

-- Direct-message conversations per participant (the conversations API).
CREATE TABLE account_conversations (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  conversation_id INTEGER NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  participant_ids TEXT NOT NULL DEFAULT '[]', -- JSON: the other participants' account ids
  last_status_id INTEGER REFERENCES statuses (id) ON DELETE SET NULL,
  unread INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  UNIQUE (account_id, conversation_id)
) STRICT;

CREATE INDEX account_conversations_recent ON account_conversations (account_id, last_status_id DESC);

CREATE TABLE markers (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  timeline TEXT NOT NULL CHECK (timeline IN ('home', 'notifications')),
  last_read_id TEXT NOT NULL,
  version INTEGER NOT NULL DEFAULT 0,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, timeline)
) STRICT, WITHOUT ROWID;

CREATE TABLE scheduled_statuses (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  application_id INTEGER REFERENCES oauth_applications (id) ON DELETE SET NULL,
  scheduled_at INTEGER NOT NULL,
  params TEXT NOT NULL,                       -- JSON: the status parameters as given
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX scheduled_statuses_due ON scheduled_statuses (scheduled_at);

-- Idempotency-Key header: the same key from the same account returns the first status.
CREATE TABLE idempotency_keys (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  key TEXT NOT NULL,
  status_id INTEGER REFERENCES statuses (id) ON DELETE CASCADE,
  scheduled_status_id INTEGER REFERENCES scheduled_statuses (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, key)
) STRICT, WITHOUT ROWID;

-- Full-text search over statuses' plain text (rowid = status id), maintained by core.
CREATE VIRTUAL TABLE statuses_fts USING fts5 (
  body,
  content = '',
  contentless_delete = 1,
  tokenize = 'unicode61 remove_diacritics 2'
);
