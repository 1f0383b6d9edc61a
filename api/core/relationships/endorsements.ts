import { deleteNote, deletePin, insertPin, pinListPage, upsertNote } from '../../db/repos/account-notes.js';
import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { findFollow } from '../../db/repos/follows.js';
import type { PageBounds } from '../../db/paging.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { hiddenAccountIds } from './exclusions.js';

/** Longest private note, in characters (Mastodon's AccountNote limit). */
export const NOTE_MAX = 2000;

/** Mastodon's validation message for endorsing an account one does not follow. */
export const ENDORSE_NOT_FOLLOWING = 'You must be already following the person you want to endorse';

function loadTarget(deps: Deps, id: string): AccountRow {
  const target = findAccountById(deps.db, id);
  if (!target) throw notFound();
  return target;
}

/**
 * Sets `actor`'s private note on an account (POST /api/v1/accounts/:id/note); an empty or absent
 * comment removes it. Longer than 2,000 characters: 422, nothing written. Unknown account: 404.
 */
export function setAccountNote(deps: Deps, actor: AccountRow, targetAccountId: string, comment: string | undefined): void {
  const target = loadTarget(deps, targetAccountId);
  const text = comment ?? '';
  if ([...text].length > NOTE_MAX) throw unprocessable(`Comment is too long (maximum is ${NOTE_MAX} characters)`);
  const at = now();
  deps.db.transaction(() => {
    if (text.trim() === '') deleteNote(deps.db, actor.id, target.id);
    else upsertNote(deps.db, { id: newId(at), account_id: actor.id, target_account_id: target.id, comment: text, at });
  });
}

/**
 * `actor` features an account on their profile (POST /api/v1/accounts/:id/endorse, and the older
 * /pin). Only accounts the actor follows (422 otherwise, Mastodon's message); the endorsement goes
 * when the follow does. Endorsing again changes nothing. Unknown account: 404.
 */
export function endorseAccount(deps: Deps, actor: AccountRow, targetAccountId: string): void {
  const target = loadTarget(deps, targetAccountId);
  const follow = findFollow(deps.db, actor.id, target.id);
  if (!follow) throw unprocessable(ENDORSE_NOT_FOLLOWING);
  const at = now();
  deps.db.transaction(() => insertPin(deps.db, { id: newId(at), account_id: actor.id, target_account_id: target.id, follow_id: follow.id, created_at: at }));
}

/** `actor` stops featuring an account; not featured is not an error. Unknown account: 404. */
export function unendorseAccount(deps: Deps, actor: AccountRow, targetAccountId: string): void {
  const target = loadTarget(deps, targetAccountId);
  deps.db.transaction(() => deletePin(deps.db, actor.id, target.id));
}

/** A page of endorsements as (pin id, account id), with the cursors of the page before any filtering. */
export interface EndorsementPage {
  accountIds: string[];
  cursors: { first: string; last: string } | null;
}

/**
 * The accounts `ownerId` features, newest first, paged by endorsement (GET /api/v1/endorsements for
 * the owner, GET /api/v1/accounts/:id/endorsements for anyone). Suspended accounts are left out,
 * and so are accounts hidden from the viewer by blocks or mutes. Unknown owner: 404; a suspended
 * owner features nothing.
 */
export function listEndorsements(deps: Deps, ownerId: string, viewerId: string | null, page: PageBounds): EndorsementPage {
  const owner = loadTarget(deps, ownerId);
  if (owner.suspended_at !== null) return { accountIds: [], cursors: null };
  const rows = pinListPage(deps.db, owner.id, page);
  const hidden = hiddenAccountIds(deps, viewerId, rows.map((r) => r.account_id));
  const first = rows[0];
  const last = rows[rows.length - 1];
  return {
    accountIds: rows.map((r) => r.account_id).filter((id) => !hidden.has(id)),
    cursors: first && last ? { first: first.pin_id, last: last.pin_id } : null,
  };
}
