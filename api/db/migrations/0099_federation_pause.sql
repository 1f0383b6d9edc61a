-- Federation paused by the owner (the desktop tray's "pause federation", `PUT /api/hearth/federation`):
-- a row while paused, with since when. Deliveries stay queued, the relay tunnel stays closed (the
-- relay keeps the mail) and the inbox answers 503 until the row goes.
CREATE TABLE federation_pause (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  paused_at INTEGER NOT NULL
);
