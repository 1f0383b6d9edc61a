-- Trends moderation and the admin dashboard's figures.

-- Whether staff let a hashtag, a status or a link card trend (Mastodon's `trendable`): NULL while
-- nobody has reviewed it (it then trends by default), 1 approved, 0 rejected. `reviewed_at` is
-- when a tag was last approved or rejected.
ALTER TABLE tags ADD COLUMN trendable INTEGER CHECK (trendable IN (0, 1));
ALTER TABLE tags ADD COLUMN reviewed_at INTEGER;
ALTER TABLE statuses ADD COLUMN trendable INTEGER CHECK (trendable IN (0, 1));
ALTER TABLE preview_cards ADD COLUMN trendable INTEGER CHECK (trendable IN (0, 1));

-- The publishers of links (Mastodon's PreviewCardProvider): one row per host of a trending link,
-- made when staff first see it. A card that was not reviewed itself trends as its publisher says.
CREATE TABLE preview_card_providers (
  id INTEGER PRIMARY KEY,
  domain TEXT NOT NULL UNIQUE,                -- lower-case host of the link
  trendable INTEGER CHECK (trendable IN (0, 1)),
  reviewed_at INTEGER,
  requested_review_at INTEGER,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
) STRICT;

-- The days (days since the epoch, UTC) on which a user used the instance: signed in, or made a
-- request with a token. The `active_users` measure and the retention cohorts count these (Mastodon
-- keeps the same in Redis); nothing else records activity per day.
CREATE TABLE user_activity_days (
  day INTEGER NOT NULL,
  user_id INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  PRIMARY KEY (day, user_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX user_activity_days_user ON user_activity_days (user_id, day);
