-- Annual reports ("Wrapstodon"): a user's year summarised from this instance's own data, generated
-- once on request and kept (the report is a snapshot, as Mastodon keeps it).
CREATE TABLE annual_reports (
  account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE,
  year INTEGER NOT NULL,
  schema_version INTEGER NOT NULL,
  data TEXT NOT NULL,                         -- JSON, shaped by schema_version
  viewed_at INTEGER,                          -- when the owner marked it read
  created_at INTEGER NOT NULL,
  PRIMARY KEY (account_id, year)
) STRICT, WITHOUT ROWID;
