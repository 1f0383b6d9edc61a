-- Moves of local accounts to another account (as Mastodon's account_migrations): who moved where,
-- and when. The latest row of an account starts the cooldown before it may move again.
CREATE TABLE account_migrations (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  target_account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
  acct TEXT NOT NULL,                         -- the target's handle as given (user@domain)
  followers_count INTEGER NOT NULL DEFAULT 0, -- followers of the old account at the time of the move
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX account_migrations_account ON account_migrations (account_id, created_at);
