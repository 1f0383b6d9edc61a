-- Relationships beyond follows: private notes on accounts and endorsements (accounts featured on a
-- profile). The blocks, mutes and account_domain_blocks tables come from 0031.

-- A user's private note about another account (Relationship `note`).
CREATE TABLE account_notes (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,        -- who wrote it
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE, -- about whom
  comment TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
) STRICT;

-- Endorsements (Mastodon's account pins): only accounts one follows, so each hangs off that follow
-- and goes with it (unfollow, block).
CREATE TABLE account_pins (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  follow_id INTEGER NOT NULL REFERENCES follows (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (account_id, target_account_id)
) STRICT;

CREATE INDEX account_pins_follow ON account_pins (follow_id);

-- Timed mutes are removed by a scheduled task once expired.
CREATE INDEX mutes_expiry ON mutes (expires_at) WHERE expires_at IS NOT NULL;
