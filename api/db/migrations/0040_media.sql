-- Media: background processing of uploads, link preview cards, and the media clean-up's rhythm.

-- An upload accepted for background processing (POST /api/v2/media with audio or video): the
-- file waits in the staging directory until its row is processed. Jobs outlive restarts.
CREATE TABLE media_jobs (
  media_id INTEGER PRIMARY KEY REFERENCES media_attachments (id) ON DELETE CASCADE,
  source_path TEXT NOT NULL,                  -- the staged upload (absolute path)
  attempts INTEGER NOT NULL DEFAULT 0,
  created_at INTEGER NOT NULL
) STRICT;

-- A link preview (Mastodon's PreviewCard), one per URL, shared by the statuses that link it.
CREATE TABLE preview_cards (
  id INTEGER PRIMARY KEY,
  url TEXT NOT NULL UNIQUE,                   -- the page the card describes (after redirects)
  title TEXT NOT NULL DEFAULT '',
  description TEXT NOT NULL DEFAULT '',
  type TEXT NOT NULL DEFAULT 'link' CHECK (type IN ('link', 'photo', 'video', 'rich')),
  author_name TEXT NOT NULL DEFAULT '',
  author_url TEXT NOT NULL DEFAULT '',
  provider_name TEXT NOT NULL DEFAULT '',
  provider_url TEXT NOT NULL DEFAULT '',
  html TEXT NOT NULL DEFAULT '',              -- sanitized oEmbed iframe, or ''
  width INTEGER NOT NULL DEFAULT 0,
  height INTEGER NOT NULL DEFAULT 0,
  image_key TEXT,                             -- storage key of the downloaded, resized image
  image_remote_url TEXT,                      -- where the image came from
  embed_url TEXT NOT NULL DEFAULT '',
  blurhash TEXT,
  language TEXT,
  published_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- The card of a status (its first link), as Mastodon's preview_cards_statuses.
CREATE TABLE preview_cards_statuses (
  status_id INTEGER PRIMARY KEY REFERENCES statuses (id) ON DELETE CASCADE,
  preview_card_id INTEGER NOT NULL REFERENCES preview_cards (id) ON DELETE CASCADE,
  url TEXT NOT NULL                           -- the link as written in the status
) STRICT;

CREATE INDEX preview_cards_statuses_card ON preview_cards_statuses (preview_card_id);

-- When each periodic media task last ran, so that its rhythm survives restarts.
CREATE TABLE media_maintenance (
  task TEXT PRIMARY KEY,
  last_run_at INTEGER NOT NULL
) STRICT;

-- The clean-up looks for old unattached media across all accounts.
CREATE INDEX media_attachments_unattached_age ON media_attachments (created_at) WHERE status_id IS NULL;
