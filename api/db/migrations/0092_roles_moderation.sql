-- Roles and account moderation (the admin accounts API).

-- Custom roles the owner makes besides the built-in ones (owner, admin, moderator, user, which stay
-- in users.role). `permissions` is Mastodon's bitmask of permission flags as given (what everyone
-- may do is added when it is applied); `position` orders roles: staff act only on roles below
-- their own, and every custom role stays below the owner (1000). Ids are small numbers counted up
-- from 4, after Mastodon's built-in ids (1 moderator, 2 admin, 3 owner), as clients read them as
-- numbers.
CREATE TABLE user_roles (
  id INTEGER PRIMARY KEY AUTOINCREMENT CHECK (id > 3),
  name TEXT NOT NULL,
  color TEXT NOT NULL DEFAULT '',              -- '#rrggbb' or '#rgb', or '' for none
  permissions INTEGER NOT NULL DEFAULT 0,
  highlighted INTEGER NOT NULL DEFAULT 0 CHECK (highlighted IN (0, 1)),
  position INTEGER NOT NULL DEFAULT 0 CHECK (position BETWEEN 0 AND 999),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

INSERT INTO sqlite_sequence (name, seq) SELECT 'user_roles', 3 WHERE NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'user_roles');

-- A user holds one role: a custom one when role_id is set (users.role is then 'user'), else the
-- built-in users.role. Deleting a custom role leaves its users with the plain user role.
ALTER TABLE users ADD COLUMN role_id INTEGER REFERENCES user_roles (id) ON DELETE SET NULL;
CREATE INDEX users_role_id ON users (role_id) WHERE role_id IS NOT NULL;

-- The application through which a user signed up (Admin::Account `created_by_application_id`).
ALTER TABLE users ADD COLUMN created_by_application_id INTEGER REFERENCES oauth_applications (id) ON DELETE SET NULL;

-- Addresses a user signed in from, with the last time (Admin::Account `ips`; the sign-up address
-- is users.sign_up_ip). One row per user and address.
CREATE TABLE user_ips (
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  ip TEXT NOT NULL,
  used_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, ip)
) STRICT;

-- Moderation decisions against an account (Mastodon's account warnings, or strikes): one per
-- action taken through the admin API, with the moderator's text and the report behind it.
CREATE TABLE account_warnings (
  id INTEGER PRIMARY KEY,
  account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,                -- the moderator
  target_account_id INTEGER NOT NULL REFERENCES accounts (id) ON DELETE CASCADE, -- the account acted on
  action TEXT NOT NULL CHECK (action IN ('none', 'disable', 'sensitive', 'silence', 'suspend')),
  text TEXT NOT NULL DEFAULT '',
  report_id INTEGER REFERENCES reports (id) ON DELETE SET NULL,
  status_ids TEXT,                             -- JSON array of the report's status ids, or NULL
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX account_warnings_target ON account_warnings (target_account_id, id);
