import type { ListRow, RepliesPolicy } from '../db/repos/lists.js';

/** Mastodon's List entity. */
export interface MastodonList {
  id: string;
  title: string;
  replies_policy: RepliesPolicy;
  exclusive: boolean;
}

/** The List entity of a list row. */
export function toMastodonList(row: ListRow): MastodonList {
  return { id: row.id, title: row.title, replies_policy: row.replies_policy, exclusive: row.exclusive === 1 };
}
