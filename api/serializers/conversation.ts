import type { MastodonAccount } from './account.js';
import type { MastodonStatus } from './status.js';

/** Mastodon's Conversation entity: a direct-message thread as one participant sees it. */
export interface MastodonConversation {
  id: string;
  unread: boolean;
  accounts: MastodonAccount[];
  last_status: MastodonStatus | null;
}

/** The Conversation entity from a participant's row, the other participants and the last status. */
export function toMastodonConversation(
  row: { id: string; unread: number },
  accounts: MastodonAccount[],
  lastStatus: MastodonStatus | null,
): MastodonConversation {
  return { id: row.id, unread: row.unread === 1, accounts, last_status: lastStatus };
}
