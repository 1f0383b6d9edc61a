import { deleteInboundTombstonesBefore, hasInboundTombstone, upsertInboundTombstone } from '../../db/repos/inbound-tombstones.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';

/**
 * Inbound tombstones make inbound activities take effect once, in any order. Peers retry failed
 * deliveries out of order and the relay replays its queue at least once, so an activity may
 * arrive after the Undo or Delete that ends it, or again after it was undone (days later, when
 * Fedify's one-day idempotence mark is gone). An Undo records the id of the activity it undoes,
 * a Delete the id of the object it deletes (or of the actor itself, when that actor was never
 * known here), with the actor that sent it; while the record lives, the same actor's activity
 * with that id (its Follow, Like, Announce or Block, its Create or Update of the object, anything
 * from the deleted actor) changes nothing.
 *
 * Keyed by id, never by (actor, object): Mastodon, GoToSocial and snac give every new Follow or
 * Like a new id, so following or liking again is never stopped by an old Undo.
 */

/** How long a tombstone binds (peers give up retrying after two or three days). */
export const INBOUND_TOMBSTONE_TTL_MS = 30 * 24 * 60 * 60 * 1000;

function originOf(uri: string): string | null {
  return URL.canParse(uri) ? new URL(uri).origin : null;
}

/**
 * Records that `actorUri` undid or deleted `uri` (the caller has checked that the actor signed
 * the Undo or Delete). Refused (false) when `uri` is on another origin than the actor: an actor
 * speaks only for its own server's activities and objects. Tombstones older than
 * INBOUND_TOMBSTONE_TTL_MS are pruned on the way (an indexed delete, so writing stays cheap).
 */
export function tombstoneInbound(deps: Deps, uri: string, actorUri: string): boolean {
  const origin = originOf(uri);
  if (origin === null || origin !== originOf(actorUri)) return false;
  const at = now();
  deps.db.transaction(() => {
    deleteInboundTombstonesBefore(deps.db, at - INBOUND_TOMBSTONE_TTL_MS);
    upsertInboundTombstone(deps.db, uri, actorUri, at);
  });
  return true;
}

/**
 * Whether `actorUri` itself undid or deleted `uri` within INBOUND_TOMBSTONE_TTL_MS. Another
 * actor's tombstone of the same id does not count, so nobody can stop someone else's activity.
 */
export function isTombstonedInbound(deps: Deps, uri: string, actorUri: string): boolean {
  return hasInboundTombstone(deps.db, uri, actorUri, now() - INBOUND_TOMBSTONE_TTL_MS);
}
