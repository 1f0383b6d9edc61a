-- Webhooks (admin-defined endpoints for Mastodon's webhook events) and mail.

-- An endpoint staff registered: `events` is a JSON array of event names (account.created, …),
-- `secret` signs every payload (X-Hub-Signature), `template` an optional body template with
-- {{placeholders}} (NULL: the JSON payload as Mastodon sends it).
CREATE TABLE webhooks (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL,
  events TEXT NOT NULL DEFAULT '[]',
  secret TEXT NOT NULL,
  enabled INTEGER NOT NULL DEFAULT 1 CHECK (enabled IN (0, 1)),
  template TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- The durable queue of webhook requests: one row per event and webhook, removed once answered
-- with a 2xx (or given up). `object_id` names the account, report or status; `body` is made when
-- the request is first sent and kept, so that a retry sends the same payload (signed again with the
-- webhook's secret of the moment). `next_attempt_at` moves ahead while a request is in flight, so
-- that a restart finds it due again once that lease has passed.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  webhook_id INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event TEXT NOT NULL,
  object_id INTEGER NOT NULL,
  body TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  created_at INTEGER NOT NULL
) STRICT;

CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at);
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id);

-- Every e-mail the instance writes, sent or not: the SMTP queue when a mailer is configured, and
-- what the owner reads (GET /api/hearth/mail, `hearth mail list`) when none is. `state`: queued
-- (waiting for SMTP, `next_attempt_at` due), sent, failed (given up) or kept (no mailer).
CREATE TABLE mail_outbox (
  id INTEGER PRIMARY KEY,
  kind TEXT NOT NULL,                         -- confirmation, password_reset, approved, pending_sign_up, new_report
  to_address TEXT NOT NULL,
  user_id INTEGER REFERENCES users (id) ON DELETE SET NULL,   -- the recipient, when a user
  subject TEXT NOT NULL,
  body TEXT NOT NULL,                         -- plain text
  state TEXT NOT NULL CHECK (state IN ('queued', 'sent', 'failed', 'kept')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  sent_at INTEGER
) STRICT;

CREATE INDEX mail_outbox_due ON mail_outbox (next_attempt_at) WHERE state = 'queued';

-- One-time codes sent by mail: an e-mail confirmation (for `email`) or a password reset. Only a
-- hash is kept; a new code replaces the user's previous one of the same purpose.
CREATE TABLE user_mail_tokens (
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  purpose TEXT NOT NULL CHECK (purpose IN ('confirmation', 'password_reset')),
  token_hash TEXT NOT NULL UNIQUE,
  email TEXT,
  expires_at INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (user_id, purpose)
) STRICT;
