-- The instance's moderation rules (the admin API's blocks): domain blocks and allows, e-mail domain
-- blocks, canonical e-mail blocks and IP blocks.

-- Instance domain blocks (Mastodon's DomainBlock): one rule set for the admin API and the
-- `hearth domain` command, which until now kept plain lists of domains in the settings
-- `federation.domain_blocks` and `federation.domain_allows` (moved here below). `domain` is
-- lower-case ASCII, with a port when the rule names one (loopback peers). `severity`: suspend
-- (no federation in or out), silence (the domain's accounts are limited) or noop (only the
-- reject_* flags apply).
CREATE TABLE instance_domain_blocks (
  id INTEGER PRIMARY KEY,
  domain TEXT NOT NULL UNIQUE,
  severity TEXT NOT NULL DEFAULT 'silence' CHECK (severity IN ('silence', 'suspend', 'noop')),
  reject_media INTEGER NOT NULL DEFAULT 0 CHECK (reject_media IN (0, 1)),
  reject_reports INTEGER NOT NULL DEFAULT 0 CHECK (reject_reports IN (0, 1)),
  private_comment TEXT,
  public_comment TEXT,
  obfuscate INTEGER NOT NULL DEFAULT 0 CHECK (obfuscate IN (0, 1)),
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- Allowed domains (Mastodon's DomainAllow): once any is listed, only these domains (and their
-- subdomains) federate.
CREATE TABLE instance_domain_allows (
  id INTEGER PRIMARY KEY,
  domain TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
) STRICT;

-- The lists kept in settings become rows; a block made by the CLI always stopped all federation,
-- so it is a suspension. Ids are made as the code makes them (milliseconds << 16, plus a sequence).
INSERT INTO instance_domain_blocks (id, domain, severity, created_at, updated_at)
  SELECT ((CAST(strftime('%s', 'now') AS INTEGER) * 1000) << 16) + j.key, j.value, 'suspend',
         CAST(strftime('%s', 'now') AS INTEGER) * 1000, CAST(strftime('%s', 'now') AS INTEGER) * 1000
    FROM settings s, json_each(s.value) j
   WHERE s.key = 'federation.domain_blocks' AND json_valid(s.value) AND j.type = 'text'
  ON CONFLICT (domain) DO NOTHING;
INSERT INTO instance_domain_allows (id, domain, created_at)
  SELECT ((CAST(strftime('%s', 'now') AS INTEGER) * 1000) << 16) + j.key, j.value, CAST(strftime('%s', 'now') AS INTEGER) * 1000
    FROM settings s, json_each(s.value) j
   WHERE s.key = 'federation.domain_allows' AND json_valid(s.value) AND j.type = 'text'
  ON CONFLICT (domain) DO NOTHING;
DELETE FROM settings WHERE key IN ('federation.domain_blocks', 'federation.domain_allows');

-- A counter per rule set, moved by every write to its tables whatever the connection (the server,
-- its delivery thread, a `hearth` command): readers keep the rules they parsed for as long as the
-- counter stays put, so the hot paths (every inbound activity, every request) read one row.
CREATE TABLE moderation_rule_versions (
  name TEXT PRIMARY KEY,
  version INTEGER NOT NULL DEFAULT 0
) STRICT;
INSERT INTO moderation_rule_versions (name) VALUES ('domains'), ('ip_blocks');

CREATE TRIGGER instance_domain_blocks_ins AFTER INSERT ON instance_domain_blocks BEGIN
  UPDATE moderation_rule_versions SET version = version + 1 WHERE name = 'domains';
END;
CREATE TRIGGER instance_domain_blocks_upd AFTER UPDATE ON instance_domain_blocks BEGIN
  UPDATE moderation_rule_versions SET version = version + 1 WHERE name = 'domains';
END;
CREATE TRIGGER instance_domain_blocks_del AFTER DELETE ON instance_domain_blocks BEGIN
  UPDATE moderation_rule_versions SET version = version + 1 WHERE name = 'domains';
END;
CREATE TRIGGER instance_domain_allows_ins AFTER INSERT ON instance_domain_allows BEGIN
  UPDATE moderation_rule_versions SET version = version + 1 WHERE name = 'domains';
END;
CREATE TRIGGER instance_domain_allows_del AFTER DELETE ON instance_domain_allows BEGIN
  UPDATE moderation_rule_versions SET version = version + 1 WHERE name = 'domains';
END;

-- E-mail domains refused at sign-up (Mastodon's EmailDomainBlock); a block covers subdomains.
CREATE TABLE email_domain_blocks (
  id INTEGER PRIMARY KEY,
  domain TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL
) STRICT;

-- Sign-up attempts a block refused, per UTC day and address (the entity's `history`: `uses` is
-- the attempts, `accounts` the distinct addresses). Only the last week is ever shown.
CREATE TABLE email_domain_block_attempts (
  block_id INTEGER NOT NULL REFERENCES email_domain_blocks (id) ON DELETE CASCADE,
  day INTEGER NOT NULL,                        -- midnight UTC, seconds since the epoch
  ip TEXT NOT NULL DEFAULT '',                 -- '' when the address is unknown
  attempts INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (block_id, day, ip)
) STRICT;

-- Addresses refused at sign-up whatever their dots and +tags (Mastodon's CanonicalEmailBlock):
-- the SHA-256 hex of the canonical address (lower case, no dots and no +tag in the local part).
CREATE TABLE canonical_email_blocks (
  id INTEGER PRIMARY KEY,
  canonical_email_hash TEXT NOT NULL UNIQUE,
  reference_account_id INTEGER REFERENCES accounts (id) ON DELETE SET NULL,
  created_at INTEGER NOT NULL
) STRICT;

-- Address ranges (Mastodon's IpBlock): `ip` is the network in CIDR form as shown ('10.0.0.0/8',
-- '2001:db8::/32'), masked to its prefix. sign_up_requires_approval makes sign-ups pending,
-- sign_up_block refuses them, no_access refuses every request. An expired block no longer applies.
CREATE TABLE ip_blocks (
  id INTEGER PRIMARY KEY,
  ip TEXT NOT NULL UNIQUE,
  severity TEXT NOT NULL CHECK (severity IN ('sign_up_requires_approval', 'sign_up_block', 'no_access')),
  comment TEXT NOT NULL DEFAULT '',
  expires_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE TRIGGER ip_blocks_ins AFTER INSERT ON ip_blocks BEGIN
  UPDATE moderation_rule_versions SET version = version + 1 WHERE name = 'ip_blocks';
END;
CREATE TRIGGER ip_blocks_upd AFTER UPDATE ON ip_blocks BEGIN
  UPDATE moderation_rule_versions SET version = version + 1 WHERE name = 'ip_blocks';
END;
CREATE TRIGGER ip_blocks_del AFTER DELETE ON ip_blocks BEGIN
  UPDATE moderation_rule_versions SET version = version + 1 WHERE name = 'ip_blocks';
END;

-- The admin reports listing: unresolved (or resolved) reports newest first, by reporter or target.
CREATE INDEX reports_resolved ON reports (id) WHERE action_taken_at IS NOT NULL;
