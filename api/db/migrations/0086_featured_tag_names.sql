-- The name a featured hashtag was featured under through POST /api/v1/featured_tags, as the owner
-- wrote it (without '#'): Mastodon finds a featured tag again by this exact name, and shows it
-- instead of the tag's own spelling. NULL for tags featured through POST /api/v1/tags/:id/feature
-- or learnt from another server, which show the tag's name.
ALTER TABLE featured_tags ADD COLUMN name TEXT;
