import { findAccountById } from '../../db/repos/accounts.js';
import { localNotifyingFollowers } from '../../db/repos/follows.js';
import { findMentionsByStatusIds } from '../../db/repos/mentions.js';
import {
  deleteNotificationsOf,
  localAccountIdsAmong,
  localPollVoterIds,
  localReblogAccountIds,
} from '../../db/repos/notifications.js';
import { findPollById } from '../../db/repos/polls.js';
import { findStatusById, type StatusRow } from '../../db/repos/statuses.js';
import { PERMISSION } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { installPush } from '../push/install.js';
import { staffToNotifyOfReport } from '../reports/reports.js';
import { accountIdsWithPermission } from '../roles/access.js';
import { quoteNotificationListeners } from '../statuses/quote-notifications.js';
import { createNotification } from './create.js';

/** Mention notifications for the local accounts a status mentions in its text (silent mentions do not notify). */
function notifyMentions(deps: Deps, status: StatusRow): void {
  const mentions = findMentionsByStatusIds(deps.db, [status.id]).filter((m) => m.silent === 0);
  const local = localAccountIdsAmong(deps.db, mentions.map((m) => m.account_id));
  for (const m of mentions) {
    if (local.has(m.account_id)) createNotification(deps, { recipientId: m.account_id, fromAccountId: status.account_id, type: 'mention', statusId: status.id });
  }
}

/**
 * `status` notifications for the local followers who follow the author with notify on, as
 * Mastodon's home fan-out does: not for reblogs, not for replies to someone else, only for
 * followers who can see the status (a direct one only reaches those it mentions), and only in the
 * languages the follow asked for.
 */
function notifySubscribers(deps: Deps, status: StatusRow): void {
  if (status.reblog_of_id !== null) return;
  if (status.in_reply_to_account_id !== null && status.in_reply_to_account_id !== status.account_id) return;
  const followers = localNotifyingFollowers(deps.db, status.account_id);
  if (followers.length === 0) return;
  const mentioned = new Set(findMentionsByStatusIds(deps.db, [status.id]).map((m) => m.account_id));
  for (const follow of followers) {
    if (status.visibility === 'direct' && !mentioned.has(follow.account_id)) continue;
    if (follow.languages !== null && status.language !== null) {
      const languages: unknown = JSON.parse(follow.languages);
      if (Array.isArray(languages) && languages.length > 0 && !languages.includes(status.language)) continue;
    }
    createNotification(deps, { recipientId: follow.account_id, fromAccountId: status.account_id, type: 'status', statusId: status.id });
  }
}

/** The local author of a status, if it exists and is local. */
function localAuthorOf(deps: Deps, statusId: string): StatusRow | undefined {
  const status = findStatusById(deps.db, statusId);
  if (!status || !localAccountIdsAmong(deps.db, [status.account_id]).has(status.account_id)) return undefined;
  return status;
}

/**
 * Subscribes the notification rules to core events (called once by createApp). Each rule reads
 * what it needs from the database, so the events stay small; creation rules live in create.ts.
 */
export function installNotifications(deps: Deps): () => void {
  const offs = [
    // Quote posts: `quote` and `quoted_update` (core/statuses/quote-notifications.ts).
    ...quoteNotificationListeners(deps),
    // Web Push: new notifications go to the recipient's push subscriptions (core/push/).
    ...installPush(deps),
    deps.events.on('status.created', ({ statusId }) => {
      const status = findStatusById(deps.db, statusId);
      // A reblog is also announced as a status; its notification comes from 'reblog.created'.
      if (!status || status.reblog_of_id !== null) return;
      notifyMentions(deps, status);
      notifySubscribers(deps, status);
    }),
    deps.events.on('status.updated', ({ statusId }) => {
      const status = findStatusById(deps.db, statusId);
      if (!status || status.reblog_of_id !== null) return;
      // Accounts newly mentioned by the edit are notified; those already notified are not again.
      notifyMentions(deps, status);
      for (const accountId of localReblogAccountIds(deps.db, status.id)) {
        createNotification(deps, { recipientId: accountId, fromAccountId: status.account_id, type: 'update', statusId: status.id });
      }
    }),
    deps.events.on('reblog.created', ({ reblogOfId, accountId }) => {
      const original = localAuthorOf(deps, reblogOfId);
      if (original) createNotification(deps, { recipientId: original.account_id, fromAccountId: accountId, type: 'reblog', statusId: original.id });
    }),
    deps.events.on('reblog.deleted', ({ reblogOfId, accountId }) => {
      const original = findStatusById(deps.db, reblogOfId);
      if (original) deleteNotificationsOf(deps.db, original.account_id, accountId, 'reblog', original.id);
    }),
    deps.events.on('favourite.created', ({ statusId, accountId }) => {
      const status = localAuthorOf(deps, statusId);
      if (status) createNotification(deps, { recipientId: status.account_id, fromAccountId: accountId, type: 'favourite', statusId: status.id });
    }),
    deps.events.on('favourite.deleted', ({ statusId, accountId }) => {
      const status = findStatusById(deps.db, statusId);
      if (status) deleteNotificationsOf(deps.db, status.account_id, accountId, 'favourite', status.id);
    }),
    deps.events.on('follow.created', ({ accountId, targetAccountId, fromRequest }) => {
      // Following a group does not notify it (groups have no one to read notifications).
      if (findAccountById(deps.db, targetAccountId)?.actor_type === 'Group') return;
      // An authorized request was announced as a follow request already; accepting it adds nothing.
      if (fromRequest) return;
      createNotification(deps, { recipientId: targetAccountId, fromAccountId: accountId, type: 'follow' });
    }),
    deps.events.on('follow.deleted', ({ accountId, targetAccountId }) => {
      deleteNotificationsOf(deps.db, targetAccountId, accountId, 'follow', null);
    }),
    deps.events.on('follow_request.created', ({ accountId, targetAccountId }) => {
      createNotification(deps, { recipientId: targetAccountId, fromAccountId: accountId, type: 'follow_request' });
    }),
    deps.events.on('follow_request.deleted', ({ accountId, targetAccountId }) => {
      deleteNotificationsOf(deps.db, targetAccountId, accountId, 'follow_request', null);
    }),
    deps.events.on('poll.ended', ({ pollId, statusId }) => {
      const poll = findPollById(deps.db, pollId);
      if (!poll) return;
      // The author hears about their own poll too (from themself), then every local voter.
      const recipients = new Set([poll.account_id, ...localPollVoterIds(deps.db, poll.id)]);
      for (const recipientId of recipients) {
        createNotification(deps, { recipientId, fromAccountId: poll.account_id, type: 'poll', statusId });
      }
    }),
    deps.events.on('collection_item.added', ({ collectionId, curatorId, accountId }) => {
      // Mastodon 4.6 tells a local account that someone featured it in a collection.
      createNotification(deps, { recipientId: accountId, fromAccountId: curatorId, type: 'added_to_collection', collectionId });
    }),
    deps.events.on('report.created', ({ reportId, accountId }) => {
      // Staff (owner, admins, moderators) hear of a new report, from the reporter.
      for (const staffId of staffToNotifyOfReport(deps, reportId)) {
        createNotification(deps, { recipientId: staffId, fromAccountId: accountId, type: 'admin.report', reportId });
      }
    }),
    deps.events.on('account.warned', ({ warningId, targetAccountId, notify }) => {
      // As Mastodon: only when the moderator asked to tell the (local) account; from the account
      // itself, since a warning has no other sender.
      if (!notify) return;
      createNotification(deps, { recipientId: targetAccountId, fromAccountId: targetAccountId, type: 'moderation_warning', accountWarningId: warningId });
    }),
    deps.events.on('user.signed_up', ({ accountId, approved }) => {
      // As Mastodon: staff are told once the account can be used (a pending sign-up is announced on approval).
      if (!approved) return;
      for (const staffId of accountIdsWithPermission(deps, PERMISSION.manageUsers)) {
        createNotification(deps, { recipientId: staffId, fromAccountId: accountId, type: 'admin.sign_up' });
      }
    }),
    deps.events.on('user.approved', ({ accountId }) => {
      for (const staffId of accountIdsWithPermission(deps, PERMISSION.manageUsers)) {
        createNotification(deps, { recipientId: staffId, fromAccountId: accountId, type: 'admin.sign_up' });
      }
    }),
  ];
  return () => offs.forEach((off) => off());
}
