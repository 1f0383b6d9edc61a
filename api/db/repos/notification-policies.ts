import type { Db } from '../connection.js';

/** What a policy does with the notifications one of its rules matches. */
export type PolicyAction = 'accept' | 'filter' | 'drop';

/** A row of `notification_policies`: one user's choices (users without a row have the defaults). */
export interface NotificationPolicyRow {
  account_id: string;
  for_not_following: PolicyAction;
  for_not_followers: PolicyAction;
  for_new_accounts: PolicyAction;
  for_private_mentions: PolicyAction;
  for_limited_accounts: PolicyAction;
  created_at: number;
  updated_at: number;
}

/** A user's stored policy, if they ever changed it. */
export function findNotificationPolicy(db: Db, accountId: string): NotificationPolicyRow | undefined {
  return db.query<NotificationPolicyRow>('SELECT * FROM notification_policies WHERE account_id = @account_id').get({ account_id: accountId });
}

/** Inserts or replaces a user's policy (created_at is kept when the row exists). */
export function upsertNotificationPolicy(db: Db, row: NotificationPolicyRow): void {
  db.query(
    `INSERT INTO notification_policies
       (account_id, for_not_following, for_not_followers, for_new_accounts, for_private_mentions, for_limited_accounts, created_at, updated_at)
     VALUES (@account_id, @for_not_following, @for_not_followers, @for_new_accounts, @for_private_mentions, @for_limited_accounts, @created_at, @updated_at)
     ON CONFLICT (account_id) DO UPDATE SET
       for_not_following = excluded.for_not_following, for_not_followers = excluded.for_not_followers,
       for_new_accounts = excluded.for_new_accounts, for_private_mentions = excluded.for_private_mentions,
       for_limited_accounts = excluded.for_limited_accounts, updated_at = excluded.updated_at`,
  ).run({ ...row });
}

/** Records that a user accepts notifications from a sender whatever their policy says. */
export function insertNotificationPermission(db: Db, accountId: string, fromAccountId: string, at: number): void {
  db.query('INSERT OR IGNORE INTO notification_permissions (account_id, from_account_id, created_at) VALUES (@account_id, @from_account_id, @at)').run({
    account_id: accountId,
    from_account_id: fromAccountId,
    at,
  });
}

/** True when the user accepted notifications from this sender. */
export function hasNotificationPermission(db: Db, accountId: string, fromAccountId: string): boolean {
  return (
    db
      .query('SELECT 1 FROM notification_permissions WHERE account_id = @account_id AND from_account_id = @from_account_id')
      .get({ account_id: accountId, from_account_id: fromAccountId }) !== undefined
  );
}

/** How far up a thread a private conversation is looked for (Mastodon's depth limit). */
const THREAD_DEPTH_LIMIT = 100;

/**
 * True when, up the thread from `statusId` (that status included), the recipient wrote a direct
 * status that mentions the sender (in its text): the sender's private mention answers a private
 * conversation the recipient started. At most 100 statuses up are walked.
 */
export function recipientMentionedSenderUpThread(db: Db, statusId: string, recipientId: string, senderId: string): boolean {
  const found = `(s.account_id = @recipient_id AND s.visibility = 'direct'
    AND EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = @sender_id AND m.silent = 0))`;
  return (
    db
      .query(
        `WITH RECURSIVE up(id, in_reply_to_id, depth, found) AS (
           SELECT s.id, s.in_reply_to_id, 0, ${found} FROM statuses s WHERE s.id = @status_id
           UNION ALL
           SELECT s.id, s.in_reply_to_id, up.depth + 1, ${found}
           FROM up JOIN statuses s ON s.id = up.in_reply_to_id
           WHERE up.found = 0 AND up.depth < @depth_limit)
         SELECT 1 FROM up WHERE found = 1 LIMIT 1`,
      )
      .get({ status_id: statusId, recipient_id: recipientId, sender_id: senderId, depth_limit: THREAD_DEPTH_LIMIT }) !== undefined
  );
}
