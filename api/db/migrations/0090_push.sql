-- Web Push. A subscription belongs to one access token (one per token, gone with it) and to the
-- token's user, whose notifications it receives. `alerts` is a JSON object from notification type
-- to true, false or null (as typecast when given); `policy` is all, followed, follower or none.
-- `access_token` is the token itself: Mastodon's push payload carries it (clients tell their
-- accounts apart by it), and only the hash is kept in oauth_tokens.
CREATE TABLE push_subscriptions (
  id INTEGER PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  access_token_id INTEGER NOT NULL UNIQUE REFERENCES oauth_tokens (id) ON DELETE CASCADE,
  endpoint TEXT NOT NULL,
  key_p256dh TEXT NOT NULL,
  key_auth TEXT NOT NULL,
  standard INTEGER NOT NULL DEFAULT 0,
  alerts TEXT NOT NULL DEFAULT '{}',
  policy TEXT NOT NULL DEFAULT 'all',
  access_token TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

CREATE INDEX push_subscriptions_user ON push_subscriptions (user_id);

-- The durable queue of push requests: one row per notification and subscription, removed once
-- sent (or given up). `next_attempt_at` is when it is due (a request in flight moves it ahead, so
-- that a restart finds it due again once that lease has passed).
CREATE TABLE push_deliveries (
  id INTEGER PRIMARY KEY,
  subscription_id INTEGER NOT NULL REFERENCES push_subscriptions (id) ON DELETE CASCADE,
  notification_id INTEGER NOT NULL REFERENCES notifications (id) ON DELETE CASCADE,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error TEXT,
  created_at INTEGER NOT NULL,
  UNIQUE (subscription_id, notification_id)
) STRICT;

CREATE INDEX push_deliveries_due ON push_deliveries (next_attempt_at);
CREATE INDEX push_deliveries_notification ON push_deliveries (notification_id);
