import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { deleteExpiredMutes, deleteMute, findMute, muteListPage, upsertMute, type MuteRow } from '../../db/repos/mutes.js';
import type { PageBounds } from '../../db/paging.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { onMuted } from '../suggestions/install.js';

/** Mute options as the API takes them. */
export interface MuteOptions {
  /** Also hide the account's notifications; default true (Mastodon's default). */
  notifications?: boolean | undefined;
  /** Seconds until the mute ends by itself; 0 or absent for a mute without end. */
  duration?: number | undefined;
}

/**
 * `actor` mutes `targetAccountId` (POST /api/v1/accounts/:id/mute). Muting again replaces the
 * options (notifications, duration: the end is counted from now), as Mastodon's `mute!` does.
 * Muting oneself writes nothing (Mastodon's MuteService returns early). Unknown account: 404.
 * What a mute hides is decided in exclusions.ts; an expired mute no longer applies anywhere and is
 * removed by `expireMutes`.
 */
export function muteAccount(deps: Deps, actor: AccountRow, targetAccountId: string, options: MuteOptions = {}): void {
  const target = findAccountById(deps.db, targetAccountId);
  if (!target) throw notFound();
  if (target.id === actor.id) return;
  const at = now();
  const duration = options.duration ?? 0;
  const row = deps.db.transaction((): MuteRow => {
    const existing = findMute(deps.db, actor.id, target.id);
    const next: MuteRow = {
      id: existing?.id ?? newId(at),
      account_id: actor.id,
      target_account_id: target.id,
      hide_notifications: options.notifications === false ? 0 : 1,
      expires_at: duration > 0 ? at + duration * 1000 : null,
      created_at: existing?.created_at ?? at,
    };
    upsertMute(deps.db, next);
    return next;
  });
  onMuted(deps, actor.id, target.id);
  deps.events.emit('mute.created', { muteId: row.id, accountId: actor.id, targetAccountId: target.id });
}

/** `actor` unmutes `targetAccountId`; not muting is not an error. Unknown account: 404. */
export function unmuteAccount(deps: Deps, actor: AccountRow, targetAccountId: string): void {
  const target = findAccountById(deps.db, targetAccountId);
  if (!target) throw notFound();
  const mute = findMute(deps.db, actor.id, target.id);
  if (!mute) return;
  deps.db.transaction(() => deleteMute(deps.db, actor.id, target.id));
  deps.events.emit('mute.deleted', { muteId: mute.id, accountId: actor.id, targetAccountId: target.id });
}

/** A page of the viewer's mutes that still apply, newest first (paged by the mute's id). */
export function listMutes(deps: Deps, viewerId: string, page: PageBounds): MuteRow[] {
  return muteListPage(deps.db, viewerId, page, now());
}

/** How many expired mutes one run of the task removes at most (the rest wait for the next tick). */
const EXPIRY_BATCH = 500;

/** Scheduled task: deletes the mutes whose time is up and announces each as ended. */
export function expireMutes(deps: Deps): void {
  const gone = deps.db.transaction(() => deleteExpiredMutes(deps.db, now(), EXPIRY_BATCH));
  for (const m of gone) deps.events.emit('mute.deleted', { muteId: m.id, accountId: m.account_id, targetAccountId: m.target_account_id });
}
