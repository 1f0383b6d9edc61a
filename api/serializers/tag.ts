import type { TagRow } from '../db/repos/tags.js';
import type { Uris } from '../util/uris.js';

/** A hashtag as a status lists it (Status::Tag). */
export interface MastodonStatusTag {
  name: string;
  url: string;
}

/** One day of a tag's usage history; numbers are strings, as Mastodon writes them. */
export interface MastodonTagHistory {
  day: string;
  uses: string;
  accounts: string;
}

/** Mastodon's Tag entity. */
export interface MastodonTag {
  id: string;
  name: string;
  url: string;
  history: MastodonTagHistory[];
  following?: boolean;
  featuring?: boolean;
}

/** The Status::Tag of a tag row: its name and its page on this instance. */
export function toMastodonStatusTag(row: Pick<TagRow, 'name'>, uris: Uris): MastodonStatusTag {
  return { name: row.name, url: uris.tagUrl(row.name) };
}

/** The Tag entity; `following`/`featuring` are given only for a signed-in viewer. */
export function toMastodonTag(
  row: TagRow,
  uris: Uris,
  extra: { history?: MastodonTagHistory[]; following?: boolean; featuring?: boolean } = {},
): MastodonTag {
  const tag: MastodonTag = { id: row.id, name: row.name, url: uris.tagUrl(row.name), history: extra.history ?? [] };
  if (extra.following !== undefined) tag.following = extra.following;
  if (extra.featuring !== undefined) tag.featuring = extra.featuring;
  return tag;
}
