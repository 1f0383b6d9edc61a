import type { Db } from '../connection.js';

/** A row of `push_subscriptions`: one access token's Web Push subscription. */
export interface PushSubscriptionRow {
  id: string;
  user_id: string;
  access_token_id: string;
  endpoint: string;
  /** The user agent's P-256 public key, base64url. */
  key_p256dh: string;
  /** The user agent's auth secret, base64url. */
  key_auth: string;
  /** 1: RFC 8291 aes128gcm with RFC 8292 VAPID; 0: the legacy aesgcm drafts. */
  standard: number;
  /** JSON object: notification type → true, false or null. */
  alerts: string;
  policy: string;
  /** The access token itself, for the payload's `access_token`. */
  access_token: string;
  created_at: number;
  updated_at: number;
}

/** A live subscription with the account whose notifications it receives and its user's locale. */
export type AccountPushSubscriptionRow = PushSubscriptionRow & { account_id: string; user_locale: string | null };

/** Inserts a subscription row as given. */
export function insertPushSubscription(db: Db, row: PushSubscriptionRow): void {
  db.query(
    `INSERT INTO push_subscriptions (id, user_id, access_token_id, endpoint, key_p256dh, key_auth, standard, alerts, policy, access_token, created_at, updated_at)
     VALUES (@id, @user_id, @access_token_id, @endpoint, @key_p256dh, @key_auth, @standard, @alerts, @policy, @access_token, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** The subscription of an access token, if it has one. */
export function findPushSubscriptionOfToken(db: Db, tokenId: string): PushSubscriptionRow | undefined {
  return db.query<PushSubscriptionRow>('SELECT * FROM push_subscriptions WHERE access_token_id = @access_token_id').get({ access_token_id: tokenId });
}

/** Removes the subscription of an access token; returns how many rows went (0 or 1). */
export function deletePushSubscriptionOfToken(db: Db, tokenId: string): number {
  return db.query('DELETE FROM push_subscriptions WHERE access_token_id = @access_token_id').run({ access_token_id: tokenId }).changes;
}

/** Removes one subscription by id (its queued deliveries go with it). */
export function deletePushSubscription(db: Db, id: string): number {
  return db.query('DELETE FROM push_subscriptions WHERE id = @id').run({ id }).changes;
}

/** Replaces a subscription's alerts and policy. */
export function updatePushSubscriptionData(db: Db, id: string, alerts: string, policy: string, at: number): void {
  db.query('UPDATE push_subscriptions SET alerts = @alerts, policy = @policy, updated_at = @at WHERE id = @id').run({ id, alerts, policy, at });
}

/**
 * The subscriptions that receive a local account's notifications: those of its user (unless the
 * user is disabled) whose token is still valid (not revoked, not expired at `at`).
 */
export function liveSubscriptionsOfAccount(db: Db, accountId: string, at: number): AccountPushSubscriptionRow[] {
  return db
    .query<AccountPushSubscriptionRow>(
      `SELECT s.*, u.account_id, u.locale AS user_locale FROM users u
       JOIN push_subscriptions s ON s.user_id = u.id
       JOIN oauth_tokens t ON t.id = s.access_token_id
       WHERE u.account_id = @account_id AND u.disabled = 0 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > @at)`,
    )
    .all({ account_id: accountId, at });
}

/** Loads subscriptions by id, with their user's account: only those of users not disabled whose token is still valid. */
export function findLiveSubscriptions(db: Db, ids: readonly string[], at: number): Map<string, AccountPushSubscriptionRow> {
  const out = new Map<string, AccountPushSubscriptionRow>();
  if (ids.length === 0) return out;
  const rows = db
    .query<AccountPushSubscriptionRow>(
      `SELECT s.*, u.account_id, u.locale AS user_locale FROM push_subscriptions s
       JOIN users u ON u.id = s.user_id
       JOIN oauth_tokens t ON t.id = s.access_token_id
       WHERE s.id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))
         AND u.disabled = 0 AND t.revoked_at IS NULL AND (t.expires_at IS NULL OR t.expires_at > @at)`,
    )
    .all({ ids: JSON.stringify([...new Set(ids)]), at });
  for (const row of rows) out.set(row.id, row);
  return out;
}
