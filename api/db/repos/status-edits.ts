import type { Db } from '../connection.js';

/** A row of `status_edits`: one version of a status. */
export interface StatusEditRow {
  id: string;
  status_id: string;
  account_id: string;
  text: string;
  content: string;
  spoiler_text: string;
  sensitive: number;
  language: string | null;
  /** JSON: [{id, description, focus_x, focus_y}] in order at that version. */
  media: string;
  /** JSON: {options: [title…]} at that version, or NULL. */
  poll: string | null;
  created_at: number;
}

/** Inserts one version. */
export function insertStatusEdit(db: Db, row: StatusEditRow): void {
  db.query(
    `INSERT INTO status_edits (id, status_id, account_id, text, content, spoiler_text, sensitive, language, media, poll, created_at)
     VALUES (@id, @status_id, @account_id, @text, @content, @spoiler_text, @sensitive, @language, @media, @poll, @created_at)`,
  ).run({ ...row });
}

/** Every version of a status, oldest first. */
export function findStatusEdits(db: Db, statusId: string): StatusEditRow[] {
  return db.query<StatusEditRow>('SELECT * FROM status_edits WHERE status_id = ? ORDER BY id').all(statusId);
}

/** True when the status has at least one version recorded. */
export function hasStatusEdits(db: Db, statusId: string): boolean {
  return db.query('SELECT 1 FROM status_edits WHERE status_id = ? LIMIT 1').get(statusId) !== undefined;
}
