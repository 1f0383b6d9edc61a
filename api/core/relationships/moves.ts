import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { findBlock, localBlockerIdsOf } from '../../db/repos/blocks.js';
import { findMute, localMutesOf } from '../../db/repos/mutes.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { blockAccount } from './blocks.js';
import { muteAccount } from './mutes.js';

/**
 * After an account moved (local or remote, `origin` → `target`), local accounts that blocked or
 * muted the old account block or mute the new one too, as Mastodon's move worker carries them
 * over: a move must not be a way around a block. A mute keeps its notification choice and what is
 * left of its duration; existing blocks and mutes of the new account are left as they are.
 */
export function carryOverBlocksAndMutes(deps: Deps, origin: AccountRow, target: AccountRow): void {
  for (const blockerId of localBlockerIdsOf(deps.db, origin.id)) {
    if (blockerId === target.id || findBlock(deps.db, blockerId, target.id)) continue;
    const blocker = findAccountById(deps.db, blockerId);
    if (blocker) blockAccount(deps, blocker, target.id);
  }
  const at = now();
  for (const mute of localMutesOf(deps.db, origin.id, at)) {
    if (mute.account_id === target.id || findMute(deps.db, mute.account_id, target.id)) continue;
    const muter = findAccountById(deps.db, mute.account_id);
    if (!muter) continue;
    // Duration in seconds of what remains (rounded up so a mute about to end still carries).
    const duration = mute.expires_at === null ? 0 : Math.max(1, Math.ceil((mute.expires_at - at) / 1000));
    muteAccount(deps, muter, target.id, { notifications: mute.hide_notifications === 1, duration });
  }
}
