-- Events of changes made by the command line (another process than the server): the command
-- writes each core event it emits here, and the running server's scheduler emits them on its own
-- event bus, so that its listeners (notifications, mail, webhooks, streaming, federation) hear of
-- them as of their own changes. `payload` is the event's JSON object.
CREATE TABLE command_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

-- The account warning (strike) a `moderation_warning` notification is about (Mastodon 4.3).
ALTER TABLE notifications ADD COLUMN account_warning_id INTEGER REFERENCES account_warnings (id) ON DELETE CASCADE;
