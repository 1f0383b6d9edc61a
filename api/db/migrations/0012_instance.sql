-- Instance information: remembers when the instance was set up, the date that documents which
-- were never edited (about page, privacy policy) report as their last update.
INSERT OR IGNORE INTO settings (key, value)
VALUES ('instance.created_at', CAST(CAST(unixepoch('subsec') * 1000 AS INTEGER) AS TEXT));
