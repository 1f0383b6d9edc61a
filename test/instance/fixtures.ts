import type { Db } from '../../api/db/connection.js';
import { insertAccount } from '../../api/db/repos/accounts.js';
import { insertEmojiRow } from '../../api/db/repos/instance.js';
import { idAtTime, newId } from '../../api/util/ids.js';

/** Inserts a status row directly (statuses are written by another area; tests only need rows). */
export function insertStatusRow(
  db: Db,
  s: { accountId: string; visibility: 'public' | 'unlisted' | 'private' | 'direct'; createdAt: number; local?: boolean },
): string {
  const local = s.local ?? true;
  const id = local ? newId(s.createdAt) : idAtTime(s.createdAt);
  db.query(
    `INSERT INTO statuses (id, account_id, local, uri, visibility, text, content, created_at, updated_at)
     VALUES (@id, @account_id, @local, @uri, @visibility, 'hello', '<p>hello</p>', @created_at, @created_at)`,
  ).run({ id, account_id: s.accountId, local: local ? 1 : 0, uri: local ? null : `https://remote.example/statuses/${id}`, visibility: s.visibility, created_at: s.createdAt });
  return id;
}

/** Inserts a remote account on `domain` (stored as given, e.g. punycode) and returns its id. */
export function insertRemoteAccount(db: Db, username: string, domain: string): string {
  const id = newId();
  const at = Date.now();
  insertAccount(db, { id, username, domain, uri: `https://${domain}/users/${username}`, url: `https://${domain}/@${username}`, created_at: at, updated_at: at });
  return id;
}

/** Inserts a custom emoji row. */
export function insertEmoji(
  db: Db,
  e: { shortcode: string; domain?: string | null; category?: string | null; disabled?: boolean; visibleInPicker?: boolean; staticFile?: string | null },
): string {
  const id = newId();
  const at = Date.now();
  const domain = e.domain ?? null;
  insertEmojiRow(db, {
    id,
    shortcode: e.shortcode,
    domain,
    uri: domain ? `https://${domain}/emojis/${id}` : null,
    image_file: domain ? null : `custom_emojis/${e.shortcode}.png`,
    static_file: domain ? null : (e.staticFile === undefined ? `custom_emojis/${e.shortcode}-static.png` : e.staticFile),
    image_remote_url: domain ? `https://${domain}/files/${e.shortcode}.png` : null,
    category: e.category ?? null,
    visible_in_picker: e.visibleInPicker === false ? 0 : 1,
    disabled: e.disabled ? 1 : 0,
    created_at: at,
    updated_at: at,
  });
  return id;
}
