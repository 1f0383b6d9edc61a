-- Lists of followed accounts (each with its own timeline) and content filters (v2 filters with
-- keywords and targeted statuses; v1 filters are views over one keyword each).

CREATE TABLE lists (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,   -- the owner
  title TEXT NOT NULL,
  replies_policy TEXT NOT NULL DEFAULT 'list' CHECK (replies_policy IN ('followed', 'list', 'none')),
  exclusive INTEGER NOT NULL DEFAULT 0,       -- members' posts leave the owner's home feed
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX lists_account ON lists (account_id, id);

-- Members of a list. follow_id is the owner's follow of the member (NULL only when the owner lists
-- themself); unfollowing removes the account from every list of the follower.
CREATE TABLE list_accounts (
  list_id INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  follow_id INTEGER REFERENCES follows (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (list_id, account_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX list_accounts_account ON list_accounts (account_id, list_id);
CREATE INDEX list_accounts_follow ON list_accounts (follow_id) WHERE follow_id IS NOT NULL;

CREATE TABLE filters (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  context TEXT NOT NULL DEFAULT '[]',         -- JSON array of home, notifications, public, thread, account
  filter_action TEXT NOT NULL DEFAULT 'warn' CHECK (filter_action IN ('warn', 'hide', 'blur')),
  expires_at INTEGER,                         -- NULL: never expires; an expired filter is kept but not applied
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX filters_account ON filters (account_id, id);

CREATE TABLE filter_keywords (
  id INTEGER PRIMARY KEY,
  filter_id INTEGER NOT NULL REFERENCES filters (id) ON DELETE CASCADE,
  keyword TEXT NOT NULL,
  whole_word INTEGER NOT NULL DEFAULT 1,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX filter_keywords_filter ON filter_keywords (filter_id, id);

CREATE TABLE filter_statuses (
  id INTEGER PRIMARY KEY,
  filter_id INTEGER NOT NULL REFERENCES filters (id) ON DELETE CASCADE,
  status_id INTEGER NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  UNIQUE (filter_id, status_id)
) STRICT;

CREATE INDEX filter_statuses_status ON filter_statuses (status_id);
