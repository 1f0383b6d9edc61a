import type { Db } from '../connection.js';

/** A row of `preview_cards`. */
export interface PreviewCardRow {
  id: string;
  url: string;
  title: string;
  description: string;
  type: 'link' | 'photo' | 'video' | 'rich';
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  html: string;
  width: number;
  height: number;
  image_key: string | null;
  image_remote_url: string | null;
  embed_url: string;
  blurhash: string | null;
  language: string | null;
  published_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A card by the URL it describes. */
export function findCardByUrl(db: Db, url: string): PreviewCardRow | undefined {
  return db.query<PreviewCardRow>('SELECT * FROM preview_cards WHERE url = ?').get(url);
}

/** Inserts a card, or replaces the one with the same URL (keeping its id); returns the id. */
export function upsertCard(db: Db, row: PreviewCardRow): string {
  const existing = findCardByUrl(db, row.url);
  const id = existing?.id ?? row.id;
  db.query(
    `INSERT INTO preview_cards (id, url, title, description, type, author_name, author_url, provider_name, provider_url, html, width, height,
       image_key, image_remote_url, embed_url, blurhash, language, published_at, created_at, updated_at)
     VALUES (@id, @url, @title, @description, @type, @author_name, @author_url, @provider_name, @provider_url, @html, @width, @height,
       @image_key, @image_remote_url, @embed_url, @blurhash, @language, @published_at, @created_at, @updated_at)
     ON CONFLICT (url) DO UPDATE SET title = excluded.title, description = excluded.description, type = excluded.type,
       author_name = excluded.author_name, author_url = excluded.author_url, provider_name = excluded.provider_name,
       provider_url = excluded.provider_url, html = excluded.html, width = excluded.width, height = excluded.height,
       image_key = excluded.image_key, image_remote_url = excluded.image_remote_url, embed_url = excluded.embed_url,
       blurhash = excluded.blurhash, language = excluded.language, published_at = excluded.published_at, updated_at = excluded.updated_at`,
  ).run({ ...row, id });
  return id;
}

/** The card linked to a status, with the link as written. */
export function findStatusCardLink(db: Db, statusId: string): { preview_card_id: string; url: string } | undefined {
  return db.query<{ preview_card_id: string; url: string }>('SELECT preview_card_id, url FROM preview_cards_statuses WHERE status_id = @status_id').get({ status_id: statusId });
}

/** Links a status to its card (replacing an earlier one). */
export function linkStatusCard(db: Db, statusId: string, cardId: string, url: string): void {
  db.query(
    `INSERT INTO preview_cards_statuses (status_id, preview_card_id, url) VALUES (@status_id, @preview_card_id, @url)
     ON CONFLICT (status_id) DO UPDATE SET preview_card_id = excluded.preview_card_id, url = excluded.url`,
  ).run({ status_id: statusId, preview_card_id: cardId, url });
}

/** Removes a status's card link; returns whether there was one. */
export function unlinkStatusCard(db: Db, statusId: string): boolean {
  return db.query('DELETE FROM preview_cards_statuses WHERE status_id = @status_id').run({ status_id: statusId }).changes > 0;
}

/** The cards of a batch of statuses, keyed by status id. */
export function findCardsByStatusIds(db: Db, statusIds: readonly string[]): Map<string, PreviewCardRow> {
  const out = new Map<string, PreviewCardRow>();
  if (statusIds.length === 0) return out;
  const rows = db
    .query<PreviewCardRow & { status_id: string }>(
      `SELECT c.*, l.status_id FROM preview_cards_statuses l JOIN preview_cards c ON c.id = l.preview_card_id
       WHERE l.status_id IN (SELECT CAST(value AS INTEGER) FROM json_each(?))`,
    )
    .all(JSON.stringify([...new Set(statusIds)]));
  for (const { status_id, ...card } of rows) out.set(status_id, card);
  return out;
}
