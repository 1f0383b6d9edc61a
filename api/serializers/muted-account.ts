import { isoTime } from '../util/clock.js';
import type { Account } from './account.js';

/** Mastodon's MutedAccount: an Account with the time its mute ends (null for a mute without end). */
export interface MutedAccount extends Account {
  mute_expires_at: string | null;
}

/** Adds the mute's end to an Account entity. */
export function toMastodonMutedAccount(account: Account, expiresAt: number | null): MutedAccount {
  return { ...account, mute_expires_at: expiresAt === null ? null : isoTime(expiresAt) };
}
