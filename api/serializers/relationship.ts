import type { FollowOptionsRow } from '../db/repos/follows.js';

/**
 * Everything the Relationship entity needs about the viewer and one other account. Blocks, mutes,
 * endorsements and notes come with the relationships issue; until then they are absent (false/empty).
 */
export interface RelationshipView {
  /** The other account. */
  id: string;
  /** The viewer's follow of the account, with its options; null when not following. */
  following: FollowOptionsRow | null;
  /** The viewer's pending request to follow the account; null when none. */
  requested: FollowOptionsRow | null;
  followedBy: boolean;
  requestedBy: boolean;
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
 * Mastodon shows them. Block, mute, endorsement and note fields are false/empty until those exist.
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
    blocking: false,
    blocked_by: false,
    muting: false,
    muting_notifications: false,
    muting_expires_at: null,
    requested: view.requested !== null,
    requested_by: view.requestedBy,
    domain_blocking: false,
    endorsed: false,
    note: '',
  };
}
