import type { Db } from '../connection.js';

/** A row of `accounts`, as stored (see 0001_foundation.sql for column meanings). */
export interface AccountRow {
  id: string;
  username: string;
  domain: string | null;
  uri: string | null;
  url: string | null;
  actor_type: 'Person' | 'Service' | 'Group' | 'Application' | 'Organization';
  display_name: string;
  note: string;
  note_source: string;
  fields: string;
  locked: number;
  discoverable: number | null;
  indexable: number;
  hide_collections: number;
  memorial: number;
  avatar_file: string | null;
  avatar_static_file: string | null;
  avatar_remote_url: string | null;
  header_file: string | null;
  header_static_file: string | null;
  header_remote_url: string | null;
  moved_to_account_id: string | null;
  also_known_as: string;
  public_key_pem: string | null;
  private_key_pem: string | null;
  inbox_url: string | null;
  outbox_url: string | null;
  shared_inbox_url: string | null;
  followers_url: string | null;
  following_url: string | null;
  featured_url: string | null;
  featured_tags_url: string | null;
  statuses_count: number;
  followers_count: number;
  following_count: number;
  last_status_at: number | null;
  suspended_at: number | null;
  silenced_at: number | null;
  sensitized_at: number | null;
  last_fetched_at: number | null;
  /** JSON array of host names allowed to credit the account (0011_accounts.sql). */
  attribution_domains: string;
  /** The avatar's and the header's alternative texts (0082_profile.sql). */
  avatar_description: string;
  header_description: string;
  /** Which profile tabs the owner wants shown (0082_profile.sql). */
  show_media: number;
  show_media_replies: number;
  show_featured: number;
  created_at: number;
  updated_at: number;
}

/** Fields needed to insert an account; the rest take their column defaults. */
export type NewAccount = Pick<AccountRow, 'id' | 'username' | 'created_at' | 'updated_at'> & Partial<AccountRow>;

/** Loads one account by id. */
export function findAccountById(db: Db, id: string): AccountRow | undefined {
  return db.query<AccountRow>('SELECT * FROM accounts WHERE id = ?').get(id);
}

/** Loads many accounts by id in one query; the result is keyed by id. */
export function findAccountsByIds(db: Db, ids: readonly string[]): Map<string, AccountRow> {
  const out = new Map<string, AccountRow>();
  const unique = [...new Set(ids)];
  // Chunked to stay well under SQLite's bound-parameter limit.
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    const rows = db
      .query<AccountRow>('SELECT * FROM accounts WHERE id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))')
      .all(JSON.stringify(chunk));
    for (const row of rows) out.set(row.id, row);
  }
  return out;
}

/** Finds an account by its handle; `domain` null means local. Case-insensitive on the username. */
export function findAccountByHandle(db: Db, username: string, domain: string | null): AccountRow | undefined {
  return db
    .query<AccountRow>("SELECT * FROM accounts WHERE lower(username) = lower(?) AND coalesce(domain, '') = coalesce(?, '')")
    .get(username, domain);
}

/** Finds a remote account by its ActivityPub id. */
export function findAccountByUri(db: Db, uri: string): AccountRow | undefined {
  return db.query<AccountRow>('SELECT * FROM accounts WHERE uri = ?').get(uri);
}

/** Inserts an account row. */
export function insertAccount(db: Db, account: NewAccount): void {
  const keys = Object.keys(account).filter((k) => account[k as keyof NewAccount] !== undefined);
  db.query(`INSERT INTO accounts (${keys.join(', ')}) VALUES (${keys.map((k) => `@${k}`).join(', ')})`).run(
    Object.fromEntries(keys.map((k) => [k, account[k as keyof NewAccount] as string | number | null])),
  );
}

/** Columns that `updateAccount` may change. */
export type AccountUpdate = Partial<Omit<AccountRow, 'id' | 'created_at'>>;

/** Updates the given columns of one account. */
export function updateAccount(db: Db, id: string, changes: AccountUpdate): void {
  const keys = Object.keys(changes).filter((k) => changes[k as keyof AccountUpdate] !== undefined);
  if (keys.length === 0) return;
  db.query(`UPDATE accounts SET ${keys.map((k) => `${k} = @${k}`).join(', ')} WHERE id = @id`).run({
    ...Object.fromEntries(keys.map((k) => [k, changes[k as keyof AccountUpdate] as string | number | null])),
    id,
  });
}

/** A row of `custom_emojis`, as profiles and statuses need it. */
export interface CustomEmojiRow {
  id: string;
  shortcode: string;
  domain: string | null;
  uri: string | null;
  image_file: string | null;
  static_file: string | null;
  image_remote_url: string | null;
  category: string | null;
  visible_in_picker: number;
  disabled: number;
  created_at: number;
  updated_at: number;
}

/**
 * Loads the enabled custom emojis named by (shortcode, domain) pairs in one query; `domain` null
 * means the instance's own emojis. Used to attach emojis to the profiles that mention them.
 */
export function findCustomEmojisByShortcodes(db: Db, pairs: readonly (readonly [string, string | null])[]): CustomEmojiRow[] {
  if (pairs.length === 0) return [];
  const out: CustomEmojiRow[] = [];
  for (let i = 0; i < pairs.length; i += 500) {
    const chunk = pairs.slice(i, i + 500).map(([shortcode, domain]) => [shortcode, domain ?? '']);
    out.push(
      ...db
        .query<CustomEmojiRow>(
          `SELECT * FROM custom_emojis
           WHERE disabled = 0
             AND (shortcode, coalesce(domain, '')) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(?))`,
        )
        .all(JSON.stringify(chunk)),
    );
  }
  return out;
}

/** How many follow requests wait for this account's answer. */
export function countPendingFollowRequests(db: Db, accountId: string): number {
  return db.query<{ n: number }>('SELECT count(*) AS n FROM follow_requests WHERE target_account_id = @account_id').get({ account_id: accountId })?.n ?? 0;
}

/**
 * One profile field as stored in `accounts.fields` (JSON array): `value` is HTML (formatted for
 * local accounts, sanitized for remote ones), `value_source` the text a local owner typed, and
 * `verified_at` when a rel="me" link back was last confirmed (ms since epoch, or an ISO string
 * as received over federation).
 */
export interface StoredProfileField {
  name: string;
  value: string;
  value_source?: string;
  verified_at?: number | string | null;
}

/** Reads `accounts.fields`, dropping entries that are not well-formed. */
export function parseProfileFields(json: string): StoredProfileField[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value.filter(
    (f): f is StoredProfileField =>
      f !== null && typeof f === 'object' && typeof (f as StoredProfileField).name === 'string' && typeof (f as StoredProfileField).value === 'string',
  );
}

/** Reads a JSON array of strings column (`also_known_as`, `attribution_domains`). */
export function parseStringList(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
  } catch {
    return [];
  }
}
