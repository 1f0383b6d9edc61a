import type { NotificationPolicy, PolicySummary } from '../core/notifications/policy.js';

/** The summary both policy entities carry. */
export interface MastodonPolicySummary {
  pending_requests_count: number;
  pending_notifications_count: number;
}

/** Mastodon's NotificationPolicy entity (v2): an action per rule. */
export interface MastodonNotificationPolicy {
  for_not_following: string;
  for_not_followers: string;
  for_new_accounts: string;
  for_private_mentions: string;
  for_limited_accounts: string;
  summary: MastodonPolicySummary;
}

/** The V1::NotificationPolicy entity: whether each rule holds notifications back at all. */
export interface MastodonV1NotificationPolicy {
  filter_not_following: boolean;
  filter_not_followers: boolean;
  filter_new_accounts: boolean;
  filter_private_mentions: boolean;
  summary: MastodonPolicySummary;
}

function toSummary(summary: PolicySummary): MastodonPolicySummary {
  return { pending_requests_count: summary.pendingRequests, pending_notifications_count: summary.pendingNotifications };
}

/** Converts a policy and its summary to the v2 entity. */
export function toMastodonNotificationPolicy(policy: NotificationPolicy, summary: PolicySummary): MastodonNotificationPolicy {
  return {
    for_not_following: policy.for_not_following,
    for_not_followers: policy.for_not_followers,
    for_new_accounts: policy.for_new_accounts,
    for_private_mentions: policy.for_private_mentions,
    for_limited_accounts: policy.for_limited_accounts,
    summary: toSummary(summary),
  };
}

/** Converts a policy to the v1 entity: a rule that filters or drops reads as true, as in Mastodon. */
export function toMastodonV1NotificationPolicy(policy: NotificationPolicy, summary: PolicySummary): MastodonV1NotificationPolicy {
  return {
    filter_not_following: policy.for_not_following !== 'accept',
    filter_not_followers: policy.for_not_followers !== 'accept',
    filter_new_accounts: policy.for_new_accounts !== 'accept',
    filter_private_mentions: policy.for_private_mentions !== 'accept',
    summary: toSummary(summary),
  };
}
