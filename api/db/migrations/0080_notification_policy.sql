-- Filtered notifications (Mastodon 4.3+): each user's notification policy, the notifications it
-- filtered, the requests that gather filtered mentions by sender, and the senders a user accepted.

-- A filtered notification is kept but left out of listings, counts and streams until its sender's
-- request is accepted (then it becomes an ordinary notification) or dismissed (then it is deleted).
ALTER TABLE notifications ADD COLUMN filtered INTEGER NOT NULL DEFAULT 0;

-- The filtered notifications of one recipient from one sender: what a request counts and merges.
CREATE INDEX notifications_filtered ON notifications (account_id, from_account_id, id DESC) WHERE filtered = 1;

-- One row per user who changed their policy; a user without a row has the defaults, as here.
CREATE TABLE notification_policies (
  account_id INTEGER PRIMARY KEY REFERENCES accounts (id) ON DELETE CASCADE,
  for_not_following TEXT NOT NULL DEFAULT 'accept' CHECK (for_not_following IN ('accept', 'filter', 'drop')),
  for_not_followers TEXT NOT NULL DEFAULT 'accept' CHECK (for_not_followers IN ('accept', 'filter', 'drop')),
  for_new_accounts TEXT NOT NULL DEFAULT 'accept' CHECK (for_new_accounts IN ('accept', 'filter', 'drop')),
  for_private_mentions TEXT NOT NULL DEFAULT 'filter' CHECK (for_private_mentions IN ('accept', 'filter', 'drop')),
  for_limited_accounts TEXT NOT NULL DEFAULT 'filter' CHECK (for_limited_accounts IN ('accept', 'filter', 'drop')),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- A sender whose filtered mentions wait for the recipient's decision. How many there are and the
-- latest status are read from the filtered notifications themselves, so that a deleted status or a
-- dismissed notification never leaves a stale count behind; a request with none left is not shown.
CREATE TABLE notification_requests (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,      -- recipient
  from_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,                -- the first filtered notification
  updated_at INTEGER NOT NULL,                -- the latest one
  UNIQUE (account_id, from_account_id)
) STRICT;

CREATE INDEX notification_requests_account ON notification_requests (account_id, id DESC);

-- Senders a user accepted (by accepting their request): the policy no longer filters or drops them.
CREATE TABLE notification_permissions (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  from_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, from_account_id)
) STRICT, WITHOUT ROWID;
