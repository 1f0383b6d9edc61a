-- Foundation: instance settings, accounts (local and remote), users, OAuth, invites, rules, emojis.
-- Ids are time-sortable 64-bit integers made by the application (api/util/ids.ts).
-- Times are INTEGER milliseconds since the epoch, UTC.

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL -- JSON
) STRICT;

CREATE TABLE accounts (
  id INTEGER PRIMARY KEY,
  username TEXT NOT NULL,
  domain TEXT,                                -- NULL for local accounts; Unicode, lower case
  uri TEXT,                                   -- ActivityPub id; NULL for local (built from the origin)
  url TEXT,                                   -- profile page for remote accounts
  actor_type TEXT NOT NULL DEFAULT 'Person'
    CHECK (actor_type IN ('Person', 'Service', 'Group', 'Application', 'Organization')),
  display_name TEXT NOT NULL DEFAULT '',
  note TEXT NOT NULL DEFAULT '',              -- HTML
  note_source TEXT NOT NULL DEFAULT '',       -- raw text as the owner typed it (local)
  fields TEXT NOT NULL DEFAULT '[]',          -- JSON [{name, value, value_source?, verified_at}]
  locked INTEGER NOT NULL DEFAULT 0,
  discoverable INTEGER,                       -- NULL: not chosen
  indexable INTEGER NOT NULL DEFAULT 0,
  hide_collections INTEGER NOT NULL DEFAULT 0,
  memorial INTEGER NOT NULL DEFAULT 0,
  avatar_file TEXT,
  avatar_static_file TEXT,
  avatar_remote_url TEXT,
  header_file TEXT,
  header_static_file TEXT,
  header_remote_url TEXT,
  moved_to_account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
  also_known_as TEXT NOT NULL DEFAULT '[]',   -- JSON array of actor URIs
  public_key_pem TEXT,
  private_key_pem TEXT,                       -- local accounts only
  inbox_url TEXT,
  outbox_url TEXT,
  shared_inbox_url TEXT,
  followers_url TEXT,
  following_url TEXT,
  featured_url TEXT,
  featured_tags_url TEXT,
  statuses_count INTEGER NOT NULL DEFAULT 0,
  followers_count INTEGER NOT NULL DEFAULT 0,
  following_count INTEGER NOT NULL DEFAULT 0,
  last_status_at INTEGER,
  suspended_at INTEGER,
  silenced_at INTEGER,
  sensitized_at INTEGER,
  last_fetched_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX accounts_handle ON accounts (lower(username), coalesce(domain, ''));
CREATE UNIQUE INDEX accounts_uri ON accounts (uri) WHERE uri IS NOT NULL;
CREATE INDEX accounts_domain ON accounts (domain) WHERE domain IS NOT NULL;
CREATE INDEX accounts_moved_to ON accounts (moved_to_account_id) WHERE moved_to_account_id IS NOT NULL;

-- A login on this instance. Every user owns exactly one local account.
CREATE TABLE users (
  id INTEGER PRIMARY KEY,
  account_id INTEGER NOT NULL UNIQUE REFERENCES accounts (id) ON DELETE CASCADE,
  email TEXT,
  password_hash TEXT NOT NULL,
  role TEXT NOT NULL DEFAULT 'user' CHECK (role IN ('owner', 'admin', 'moderator', 'user')),
  locale TEXT,
  approved INTEGER NOT NULL DEFAULT 1,
  disabled INTEGER NOT NULL DEFAULT 0,
  confirmed_at INTEGER,
  sign_up_reason TEXT,
  sign_up_ip TEXT,
  invite_id INTEGER,
  settings TEXT NOT NULL DEFAULT '{}',        -- JSON: posting defaults, reading preferences
  last_sign_in_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX users_email ON users (lower(email)) WHERE email IS NOT NULL;

CREATE TABLE oauth_applications (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  website TEXT,
  redirect_uris TEXT NOT NULL,                -- newline-separated
  scopes TEXT NOT NULL,                       -- space-separated
  client_id TEXT NOT NULL UNIQUE,
  client_secret TEXT NOT NULL,
  owner_user_id INTEGER REFERENCES users (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL
) STRICT;

-- Authorization codes issued by /oauth/authorize, exchanged once at /oauth/token.
CREATE TABLE oauth_grants (
  id INTEGER PRIMARY KEY,
  application_id INTEGER NOT NULL REFERENCES oauth_applications (id) ON DELETE CASCADE,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code_hash TEXT NOT NULL UNIQUE,
  redirect_uri TEXT NOT NULL,
  scopes TEXT NOT NULL,
  code_challenge TEXT,
  code_challenge_method TEXT,
  expires_at INTEGER NOT NULL,
  used_at INTEGER,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE oauth_tokens (
  id INTEGER PRIMARY KEY,
  application_id INTEGER REFERENCES oauth_applications (id) ON DELETE CASCADE,
  user_id INTEGER REFERENCES users (id) ON DELETE CASCADE, -- NULL for client_credentials
  token_hash TEXT NOT NULL UNIQUE,            -- SHA-256 of the token; the token itself is never stored
  refresh_token_hash TEXT UNIQUE,
  scopes TEXT NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER,
  last_used_at INTEGER,
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX oauth_tokens_user ON oauth_tokens (user_id);

-- Browser sessions for the login, consent and setup pages (not API tokens).
CREATE TABLE web_sessions (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  session_hash TEXT NOT NULL UNIQUE,
  csrf_token TEXT NOT NULL,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE invites (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  code TEXT NOT NULL UNIQUE,
  max_uses INTEGER,
  uses INTEGER NOT NULL DEFAULT 0,
  autofollow INTEGER NOT NULL DEFAULT 0,
  comment TEXT,
  expires_at INTEGER,
  created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE rules (
  id INTEGER PRIMARY KEY,
  text TEXT NOT NULL,
  hint TEXT NOT NULL DEFAULT '',
  position INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE custom_emojis (
  id INTEGER PRIMARY KEY,
  shortcode TEXT NOT NULL,
  domain TEXT,                                -- NULL for local emojis
  uri TEXT,
  image_file TEXT,
  static_file TEXT,
  image_remote_url TEXT,
  category TEXT,
  visible_in_picker INTEGER NOT NULL DEFAULT 1,
  disabled INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX custom_emojis_shortcode ON custom_emojis (shortcode, coalesce(domain, ''));
