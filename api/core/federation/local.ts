import { findAccountByHandle, findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { findUserByAccountId } from '../../db/repos/users.js';
import {
  countPublicStatuses,
  followPageUris,
  pinnedPublicStatuses,
  publicStatusPage,
  remoteFollowerInboxesPage,
} from '../../db/repos/federation.js';
import { findFollow, findFollowRequest, type FollowRow } from '../../db/repos/follows.js';
import { findMediaByStatusIds, type MediaRow } from '../../db/repos/media.js';
import { findMentionsByStatusIds } from '../../db/repos/mentions.js';
import { getSetting, setSetting } from '../../db/repos/settings.js';
import { findStatusById, type StatusRow } from '../../db/repos/statuses.js';
import { findTagsByStatusIds } from '../../db/repos/tags.js';
import { generateActorKeys, generateActorKeysAsync } from '../accounts/create.js';
import type { Deps } from '../deps.js';
import { findPollsByStatusIds } from '../../db/repos/status-polls.js';
import type { PollRow } from '../../db/repos/polls.js';
import { loadNoteQuoting, type NoteQuoting } from '../statuses/quote-notes.js';

/** Reads federation needs about local accounts and statuses (dispatchers and delivery). */

/** A local, not suspended account by username (actor dispatcher, WebFinger). */
export function findLocalActor(deps: Deps, username: string): AccountRow | undefined {
  const row = findAccountByHandle(deps.db, username, null);
  return row && row.suspended_at === null ? row : undefined;
}

/**
 * A local account as its actor document shows it, suspended ones included (Mastodon serves a
 * suspended actor, emptied, with `suspended: true`, so that peers mark it suspended too):
 * `active`, `suspended`, or `gone` once staff deleted its data (its user is gone; the row stays
 * so the name is never reused, and the actor answers 410 Gone). Undefined for an unknown name.
 */
export function findLocalActorState(deps: Deps, username: string): { account: AccountRow; state: 'active' | 'suspended' | 'gone' } | undefined {
  const row = findAccountByHandle(deps.db, username, null);
  if (!row) return undefined;
  if (row.suspended_at === null) return { account: row, state: 'active' };
  return { account: row, state: findUserByAccountId(deps.db, row.id) ? 'suspended' : 'gone' };
}

/** Any account by id. */
export function accountById(deps: Deps, id: string): AccountRow | undefined {
  return findAccountById(deps.db, id);
}

/** Any status by id. */
export function statusById(deps: Deps, id: string): StatusRow | undefined {
  return findStatusById(deps.db, id);
}

/** The follow (or pending request) of `accountId` to `targetId`, if any. */
export function followBetween(deps: Deps, accountId: string, targetId: string): FollowRow | undefined {
  return findFollow(deps.db, accountId, targetId) ?? findFollowRequest(deps.db, accountId, targetId);
}

/** One page of a local account's remote followers with their inboxes (see remoteFollowerInboxesPage). */
export function followerInboxesPage(
  deps: Deps,
  accountId: string,
  afterAccountId: string | null,
  limit: number,
): { account_id: string; uri: string; inbox: string; shared_inbox: string | null }[] {
  return remoteFollowerInboxesPage(deps.db, accountId, afterAccountId, limit);
}

/** A page of actor URIs of followers/followees; local accounts get their built URI. */
export function followCollectionPage(
  deps: Deps,
  accountId: string,
  direction: 'followers' | 'following',
  beforeId: string | null,
  limit: number,
): { uris: string[]; next: string | null } {
  const rows = followPageUris(deps.db, accountId, direction, beforeId, limit);
  return {
    uris: rows.map((r) => r.uri ?? deps.uris.accountUri(r.username)),
    next: rows.length === limit ? (rows[rows.length - 1]?.id ?? null) : null,
  };
}

/** Everything needed to render statuses as Notes: mentions (accounts), tags, media. */
export interface NoteContext {
  mentions: Map<string, AccountRow[]>;
  tags: Map<string, string[]>;
  media: Map<string, MediaRow[]>;
  parents: Map<string, { status: StatusRow; author: AccountRow }>;
  /** Polls by status id (a status with a poll federates as a Question). */
  polls: Map<string, PollRow>;
  /** Quotes and quote policies by status id (core/statuses/quote-notes.ts). */
  quoting: NoteQuoting;
}

/** Loads what `toApNote` needs for a batch of statuses, in a few queries. */
export function loadNoteContext(deps: Deps, statuses: readonly StatusRow[]): NoteContext {
  const ids = statuses.map((s) => s.id);
  const mentionRows = findMentionsByStatusIds(deps.db, ids);
  const parentIds = statuses.map((s) => s.in_reply_to_id).filter((v): v is string => v !== null);
  const parents = new Map<string, { status: StatusRow; author: AccountRow }>();
  for (const pid of parentIds) {
    const p = findStatusById(deps.db, pid);
    const a = p ? findAccountById(deps.db, p.account_id) : undefined;
    if (p && a) parents.set(pid, { status: p, author: a });
  }
  const accountIds = mentionRows.map((m) => m.account_id);
  const accounts = new Map<string, AccountRow>();
  for (const id of new Set(accountIds)) {
    const a = findAccountById(deps.db, id);
    if (a) accounts.set(id, a);
  }
  const mentions = new Map<string, AccountRow[]>();
  for (const m of mentionRows) {
    const a = accounts.get(m.account_id);
    if (!a) continue;
    mentions.set(m.status_id, [...(mentions.get(m.status_id) ?? []), a]);
  }
  const tags = new Map<string, string[]>();
  for (const t of findTagsByStatusIds(deps.db, ids)) tags.set(t.status_id, [...(tags.get(t.status_id) ?? []), t.name]);
  const media = new Map<string, MediaRow[]>();
  for (const m of findMediaByStatusIds(deps.db, ids)) if (m.status_id) media.set(m.status_id, [...(media.get(m.status_id) ?? []), m]);
  return { mentions, tags, media, parents, polls: findPollsByStatusIds(deps.db, ids), quoting: loadNoteQuoting(deps, statuses) };
}

/** A page of a local account's public statuses for its outbox. */
export function outboxPage(deps: Deps, accountId: string, beforeId: string | null, limit: number): { statuses: StatusRow[]; total: number; next: string | null } {
  const statuses = publicStatusPage(deps.db, accountId, beforeId, limit);
  return { statuses, total: countPublicStatuses(deps.db, accountId), next: statuses.length === limit ? (statuses[statuses.length - 1]?.id ?? null) : null };
}

/** A local account's pinned public statuses. */
export function featuredStatuses(deps: Deps, accountId: string): StatusRow[] {
  return pinnedPublicStatuses(deps.db, accountId);
}

const INSTANCE_ACTOR_KEYS = 'federation.instance_actor_keys';

/** The instance actor's key pair (made once, kept in settings). */
export function instanceActorKeys(deps: Deps): { publicKeyPem: string; privateKeyPem: string } {
  const stored = getSetting<{ publicKeyPem: string; privateKeyPem: string }>(deps.db, INSTANCE_ACTOR_KEYS);
  if (stored) return stored;
  const keys = generateActorKeys();
  setSetting(deps.db, INSTANCE_ACTOR_KEYS, keys);
  return keys;
}

/**
 * Makes the instance actor's key pair ahead of its first use, off the main thread. It signs the
 * instance's fetches (the first remote key or actor fetched, often in the middle of an inbound
 * activity), and made there it would stop the event loop for the 50 ms or so that an RSA key
 * takes. A pair made meanwhile by `instanceActorKeys` is kept.
 */
export async function prepareInstanceActorKeys(deps: Deps): Promise<void> {
  if (getSetting(deps.db, INSTANCE_ACTOR_KEYS) !== undefined) return;
  const keys = await generateActorKeysAsync();
  if (!deps.db.raw.open || getSetting(deps.db, INSTANCE_ACTOR_KEYS) !== undefined) return;
  setSetting(deps.db, INSTANCE_ACTOR_KEYS, keys);
}
