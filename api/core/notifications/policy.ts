import { findAccountById } from '../../db/repos/accounts.js';
import { findFollow } from '../../db/repos/follows.js';
import {
  findNotificationPolicy,
  hasNotificationPermission,
  recipientMentionedSenderUpThread,
  upsertNotificationPolicy,
  type NotificationPolicyRow,
  type PolicyAction,
} from '../../db/repos/notification-policies.js';
import { pendingRequestsSummary } from '../../db/repos/notification-requests.js';
import { findUserByAccountId } from '../../db/repos/users.js';
import type { StatusRow } from '../../db/repos/statuses.js';
import { now } from '../../util/clock.js';
import { BUILT_IN_ROLES, PERMISSION, roleHas, roleOutranks } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { notificationsHiddenSql } from '../relationships/exclusions.js';
import { roleOf } from '../roles/access.js';

export type { PolicyAction } from '../../db/repos/notification-policies.js';

/** The actions a policy rule may take, as the API names them. */
export const POLICY_ACTIONS: readonly PolicyAction[] = ['accept', 'filter', 'drop'];

/** The policy rules, in the order Mastodon weighs them. */
export const POLICY_KEYS = ['for_limited_accounts', 'for_not_following', 'for_not_followers', 'for_new_accounts', 'for_private_mentions'] as const;
export type PolicyKey = (typeof POLICY_KEYS)[number];

/** A user's notification policy: one action per rule. */
export type NotificationPolicy = Record<PolicyKey, PolicyAction>;

/** What a user has before changing anything: only private mentions and limited accounts are filtered. */
export const DEFAULT_POLICY: Readonly<NotificationPolicy> = {
  for_limited_accounts: 'filter',
  for_not_following: 'accept',
  for_not_followers: 'accept',
  for_new_accounts: 'accept',
  for_private_mentions: 'filter',
};

/** The summary of what the policy holds back, as the policy entity carries it. */
export interface PolicySummary {
  pendingRequests: number;
  pendingNotifications: number;
}

/** Types the policy may filter or drop (Mastodon's `filterable` types); the others always pass. */
const FILTERABLE_TYPES: ReadonlySet<string> = new Set(['mention', 'reblog', 'follow', 'follow_request', 'favourite', 'quote', 'added_to_collection']);

/** An account counts as new for this long after it was created. */
const NEW_ACCOUNT_MS = 30 * 86_400_000;
/** A follower counts as one only after following for this long (so a follow cannot open the door at once). */
const NEW_FOLLOWER_MS = 3 * 86_400_000;

function toPolicy(row: NotificationPolicyRow | undefined): NotificationPolicy {
  if (!row) return { ...DEFAULT_POLICY };
  return Object.fromEntries(POLICY_KEYS.map((k) => [k, row[k]])) as NotificationPolicy;
}

/** A user's policy (the defaults until they change it). */
export function loadNotificationPolicy(deps: Deps, accountId: string): NotificationPolicy {
  return toPolicy(findNotificationPolicy(deps.db, accountId));
}

/** Changes the given rules of a user's policy and returns the whole policy. */
export function updateNotificationPolicy(deps: Deps, accountId: string, changes: Partial<NotificationPolicy>): NotificationPolicy {
  return deps.db.transaction(() => {
    const existing = findNotificationPolicy(deps.db, accountId);
    const policy = { ...toPolicy(existing), ...changes };
    const at = now();
    upsertNotificationPolicy(deps.db, { account_id: accountId, ...policy, created_at: existing?.created_at ?? at, updated_at: at });
    return policy;
  });
}

/**
 * How many requests wait for the user (at most 100) and how many filtered notifications they hold.
 * Requests from accounts the user's blocks and mutes hide are not counted, as they are not listed.
 */
export function notificationPolicySummary(deps: Deps, accountId: string): PolicySummary {
  const summary = pendingRequestsSummary(deps.db, accountId, notificationsHiddenSql('r.from_account_id'));
  return { pendingRequests: summary.requests, pendingNotifications: summary.notifications };
}

/** What a policy decision looks at: who gets the notification, who caused it, of which type, about which status. */
export interface PolicyInput {
  recipientId: string;
  fromAccountId: string;
  type: string;
  status: StatusRow | null;
}

/**
 * Whether a local staff member's mention reaches the recipient whatever their policy: staff who
 * outrank the recipient (Mastodon lets moderators and above reach users below them).
 */
function staffMention(deps: Deps, input: PolicyInput): boolean {
  if (input.type !== 'mention') return false;
  const sender = findUserByAccountId(deps.db, input.fromAccountId);
  if (!sender) return false;
  // Mastodon's `bypass_block?`: a role that manages users and ranks above the recipient's.
  const role = roleOf(deps, sender);
  if (!roleHas(role, PERMISSION.manageUsers)) return false;
  const recipient = findUserByAccountId(deps.db, input.recipientId);
  return roleOutranks(role, recipient ? roleOf(deps, recipient) : BUILT_IN_ROLES.user);
}

/**
 * What the recipient's policy does with a new notification, as Mastodon decides it: types that
 * cannot be filtered, senders the recipient accepted and mentions from staff pass; otherwise the
 * first rule that matches with `drop` drops it, else the first that matches with `filter` filters
 * it, else it is accepted. The rules:
 * - for_limited_accounts: the sender is limited by a moderator and the recipient does not follow them;
 * - for_not_following: the recipient does not follow the sender;
 * - for_not_followers: the sender does not follow the recipient, or started less than 3 days ago;
 * - for_new_accounts: the sender's account is less than 30 days old and the recipient does not follow it;
 * - for_private_mentions: a direct mention from someone the recipient does not follow, unless it
 *   answers a private mention of the sender by the recipient up the thread.
 */
export function policyVerdict(deps: Deps, input: PolicyInput): PolicyAction {
  if (!FILTERABLE_TYPES.has(input.type)) return 'accept';
  const policy = loadNotificationPolicy(deps, input.recipientId);
  if (POLICY_KEYS.every((k) => policy[k] === 'accept')) return 'accept';
  if (hasNotificationPermission(deps.db, input.recipientId, input.fromAccountId)) return 'accept';
  if (staffMention(deps, input)) return 'accept';
  const sender = findAccountById(deps.db, input.fromAccountId);
  if (!sender) return 'accept';
  const at = now();
  const notFollowing = findFollow(deps.db, input.recipientId, input.fromAccountId) === undefined;
  const matches: Record<PolicyKey, () => boolean> = {
    for_limited_accounts: () => sender.silenced_at !== null && notFollowing,
    for_not_following: () => notFollowing,
    for_not_followers: () => {
      const follow = findFollow(deps.db, input.fromAccountId, input.recipientId);
      return follow === undefined || follow.created_at > at - NEW_FOLLOWER_MS;
    },
    for_new_accounts: () => sender.created_at > at - NEW_ACCOUNT_MS && notFollowing,
    for_private_mentions: () => {
      const status = input.status;
      if (input.type !== 'mention' || !status || status.visibility !== 'direct' || !notFollowing) return false;
      // A reply within a private conversation the recipient started with the sender is let through.
      return status.in_reply_to_id === null || !recipientMentionedSenderUpThread(deps.db, status.in_reply_to_id, input.recipientId, input.fromAccountId);
    },
  };
  for (const action of ['drop', 'filter'] as const) {
    if (POLICY_KEYS.some((k) => policy[k] === action && matches[k]())) return action;
  }
  return 'accept';
}
