import type { AccountRow } from '../db/repos/accounts.js';
import type { FeaturedTagStatsRow } from '../db/repos/tag-follows.js';
import { isoDate } from '../util/clock.js';
import type { Uris } from '../util/uris.js';

/** Mastodon's FeaturedTag entity. */
export interface MastodonFeaturedTag {
  /** The featured tag's own id, not the tag's. */
  id: string;
  /** The hashtag's name as it was featured (else the tag's), without the number sign. */
  name: string;
  /** The account's statuses with this tag. */
  url: string;
  /** A number written as a string, as Mastodon serializes it. */
  statuses_count: string;
  /** YYYY-MM-DD of the account's latest status with the tag, or null. */
  last_status_at: string | null;
}

/** The FeaturedTag entity of one of `account`'s featured tags. */
export function toMastodonFeaturedTag(row: FeaturedTagStatsRow, account: Pick<AccountRow, 'username' | 'domain'>, uris: Uris): MastodonFeaturedTag {
  return {
    id: row.id,
    name: row.name,
    // The name it was featured under is shown; the link is the tag's own (Mastodon links the tag).
    url: uris.accountTagUrl(account.username, account.domain, row.tag_name),
    statuses_count: String(row.statuses_count),
    last_status_at: row.last_status_at === null ? null : isoDate(row.last_status_at),
  };
}
