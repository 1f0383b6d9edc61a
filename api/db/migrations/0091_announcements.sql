-- Announcements: notices the instance's staff shows to every local user (Mastodon's
-- announcements), with the users' dismissals and emoji reactions.

-- One announcement. Its id is a small number counted up and never reused, as Mastodon's are, not a
-- time-based 64-bit id: clients parse the payload of the `announcement.delete` streaming event as
-- JSON (masto does), which keeps a small number exact and would round a 64-bit one.
-- Times are milliseconds since the epoch. `published` says whether users see it;
-- an unpublished one with `scheduled_at` is published by the job scheduler when that time comes.
-- `status_ids` (a JSON array, or NULL before the first publication) names the statuses its text
-- links to, resolved when it is published or edited while published, as Mastodon keeps them.
CREATE TABLE announcements (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  text TEXT NOT NULL,
  published INTEGER NOT NULL DEFAULT 0 CHECK (published IN (0, 1)),
  all_day INTEGER NOT NULL DEFAULT 0 CHECK (all_day IN (0, 1)),
  scheduled_at INTEGER,
  starts_at INTEGER,
  ends_at INTEGER,
  published_at INTEGER,
  status_ids TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- What the scheduler looks for every second: unpublished announcements whose time has come, and
-- published ones whose end has passed.
CREATE INDEX announcements_scheduled ON announcements (scheduled_at) WHERE published = 0 AND scheduled_at IS NOT NULL;
CREATE INDEX announcements_ending ON announcements (ends_at) WHERE published = 1 AND ends_at IS NOT NULL;

-- A user who dismissed (read) an announcement.
CREATE TABLE announcement_dismissals (
  announcement_id INTEGER NOT NULL REFERENCES announcements (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (announcement_id, account_id)
) STRICT;

CREATE INDEX announcement_dismissals_account ON announcement_dismissals (account_id);

-- A user's reaction: a Unicode emoji, or the shortcode of one of the instance's custom emojis
-- (`custom_emoji_id` then names it; it goes back to NULL if the emoji is removed).
CREATE TABLE announcement_reactions (
  id INTEGER PRIMARY KEY,
  announcement_id INTEGER NOT NULL REFERENCES announcements (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  custom_emoji_id INTEGER REFERENCES custom_emojis (id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  UNIQUE (announcement_id, account_id, name)
) STRICT;

CREATE INDEX announcement_reactions_name ON announcement_reactions (announcement_id, name);
CREATE INDEX announcement_reactions_account ON announcement_reactions (account_id);

-- Streaming events still to send about announcements, written in the same transaction as the
-- change: a change made by the command line (another process) reaches the running server's
-- streams when its scheduler next looks, and one made by the server is sent at once.
CREATE TABLE announcement_outbox (
  id INTEGER PRIMARY KEY,
  announcement_id INTEGER NOT NULL,
  event TEXT NOT NULL CHECK (event IN ('announcement', 'announcement.delete')),
  created_at INTEGER NOT NULL
) STRICT;
