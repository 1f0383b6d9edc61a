-- Follow suggestions, featured and followed hashtags, reports; and the user-level blocks, mutes
-- and domain blocks that suggestions, search and the directory already respect (their endpoints
-- come with the blocks work, which fills these tables).

CREATE TABLE blocks (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,        -- who blocks
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE, -- who is blocked
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
) STRICT;

CREATE INDEX blocks_target ON blocks (target_account_id, account_id);

CREATE TABLE mutes (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  hide_notifications INTEGER NOT NULL DEFAULT 1,
  expires_at INTEGER,                         -- NULL: until unmuted; an expired mute no longer applies
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
) STRICT;

CREATE INDEX mutes_target ON mutes (target_account_id);

-- A user hiding a whole remote domain (not the instance-level domain blocks of moderation).
CREATE TABLE account_domain_blocks (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  domain TEXT NOT NULL,                       -- Unicode, lower case, as accounts.domain
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, domain)
) STRICT;

-- Accounts a local user interacted with without following them (reply 1, favourite 10,
-- reblog 20): the past-interactions source of follow suggestions. Kept small per user.
CREATE TABLE suggestion_candidates (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,        -- the local user
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE, -- the suggestion
  score INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,                -- last interaction
  PRIMARY KEY (account_id, target_account_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX suggestion_candidates_target ON suggestion_candidates (target_account_id);

-- Suggestions a user dismissed (DELETE /api/v1/suggestions/:account_id): never suggested again.
CREATE TABLE suggestion_dismissals (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, target_account_id)
) STRICT, WITHOUT ROWID;

-- Hashtags shown on a profile. Their statuses_count and last_status_at are computed when read.
CREATE TABLE featured_tags (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, tag_id)
) STRICT;

-- Hashtags a local user follows: statuses carrying them reach that user's home feed.
CREATE TABLE tag_follows (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  tag_id INTEGER NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, tag_id)
) STRICT;

CREATE INDEX tag_follows_tag ON tag_follows (tag_id, account_id);

CREATE TABLE reports (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,        -- the reporter
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE, -- the reported
  status_ids TEXT NOT NULL DEFAULT '[]',      -- JSON array of status ids (kept if the statuses go)
  rule_ids TEXT,                              -- JSON array of rule ids; NULL unless category = violation
  comment TEXT NOT NULL DEFAULT '',
  category TEXT NOT NULL DEFAULT 'other' CHECK (category IN ('other', 'spam', 'legal', 'violation')),
  forwarded INTEGER NOT NULL DEFAULT 0,       -- asked to forward to the target's server (remote targets only)
  uri TEXT,                                   -- ActivityPub Flag id, for reports sent or received
  assigned_account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
  action_taken_at INTEGER,
  action_taken_by_account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX reports_target ON reports (target_account_id, id);
CREATE INDEX reports_account ON reports (account_id, id);
CREATE INDEX reports_unresolved ON reports (id) WHERE action_taken_at IS NULL;
