import type { FollowOptionsRow } from '../db/repos/follows.js';
import { isoTime } from '../util/clock.js';

/** The viewer's active mute of the other account, as the Relationship shows it. */
export interface MuteView {
  hideNotifications: boolean;
  /** ms since epoch, or null for a mute without end. */
  expiresAt: number | null;
}

/** Everything the Relationship entity needs about the viewer and one other account. */
export interface RelationshipView {
  /** The other account. */
  id: string;
  /** The viewer's follow of the account, with its options; null when not following. */
  following: FollowOptionsRow | null;
  /** The viewer's pending request to follow the account; null when none. */
  requested: FollowOptionsRow | null;
  followedBy: boolean;
  requestedBy: boolean;
  blocking: boolean;
  blockedBy: boolean;
  /** The viewer's mute of the account while it applies; null when not muting (or expired). */
  muting: MuteView | null;
  /** The viewer blocks the account's domain (remote accounts only). */
  domainBlocking: boolean;
  endorsed: boolean;
  /** The viewer's private note; '' when none. */
  note: string;
}

/** Mastodon's Relationship entity: the viewer's relationship to another account. */
export interface Relationship {
  id: string;
  following: boolean;
  showing_reblogs: boolean;
  notifying: boolean;
  languages: string[] | null;
  followed_by: boolean;
  blocking: boolean;
  blocked_by: boolean;
  muting: boolean;
  muting_notifications: boolean;
  muting_expires_at: string | null;
  requested: boolean;
  requested_by: boolean;
  domain_blocking: boolean;
  endorsed: boolean;
  note: string;
}

function parseLanguages(value: string | null): string[] | null {
  if (value === null) return null;
  const parsed: unknown = JSON.parse(value);
  return Array.isArray(parsed) ? parsed.filter((v): v is string => typeof v === 'string') : null;
}

/**
 * Converts a loaded relationship to the API entity. The follow options (showing_reblogs, notifying,
 * languages) come from the follow, or from the pending request when there is no follow yet, as
 * Mastodon shows them.
 *
 * `following` stays a JSON boolean, as Mastodon's docs, its OpenAPI description and the typed
 * clients (Swift, Kotlin, masto) expect: the spec's "object carrying reblogs" is what Mastodon
 * keeps internally; the reblogs choice reaches clients as `showing_reblogs`.
 */
export function toMastodonRelationship(view: RelationshipView): Relationship {
  const options = view.following ?? view.requested;
  return {
    id: view.id,
    following: view.following !== null,
    showing_reblogs: options ? options.show_reblogs === 1 : false,
    notifying: options ? options.notify === 1 : false,
    languages: options ? parseLanguages(options.languages) : null,
    followed_by: view.followedBy,
    blocking: view.blocking,
    blocked_by: view.blockedBy,
    muting: view.muting !== null,
    muting_notifications: view.muting?.hideNotifications ?? false,
    muting_expires_at: view.muting && view.muting.expiresAt !== null ? isoTime(view.muting.expiresAt) : null,
    requested: view.requested !== null,
    requested_by: view.requestedBy,
    domain_blocking: view.domainBlocking,
    endorsed: view.endorsed,
    note: view.note,
  };
}
