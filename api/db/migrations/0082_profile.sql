-- The profile API (Mastodon 4.6): the alternative texts of the avatar and the header, and which
-- tabs the owner wants shown on their profile (Media, media in replies, Featured).
ALTER TABLE accounts ADD COLUMN avatar_description TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN header_description TEXT NOT NULL DEFAULT '';
ALTER TABLE accounts ADD COLUMN show_media INTEGER NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN show_media_replies INTEGER NOT NULL DEFAULT 1;
ALTER TABLE accounts ADD COLUMN show_featured INTEGER NOT NULL DEFAULT 1;
