import type { Db } from '../connection.js';
import type { PageSql } from '../paging.js';

/** What a file holds (Mastodon's import types, with the names Hearth's API uses). */
export type ImportType = 'following' | 'lists' | 'blocks' | 'mutes' | 'domain_blocks' | 'bookmarks';

/** Merge adds to what is there; overwrite also removes what the file does not name. */
export type ImportMode = 'merge' | 'overwrite';

/** Where an import is: waiting for the job, being worked on, done, or stopped by its owner. */
export type ImportState = 'scheduled' | 'in_progress' | 'finished' | 'cancelled';

/** A row of `imports` (see 0098_imports.sql). */
export interface ImportRow {
  id: string;
  account_id: string;
  type: ImportType;
  mode: ImportMode;
  state: ImportState;
  prepared: number;
  local_domain: string;
  total: number;
  processed: number;
  imported: number;
  failed: number;
  created_at: number;
  finished_at: number | null;
}

/** A row of `import_rows`: one line of the file and what became of it. */
export interface ImportLineRow {
  import_id: string;
  position: number;
  data: string;
  state: 'pending' | 'imported' | 'failed';
  reason: string | null;
  message: string | null;
}

/** Stores an import and its rows (the caller's transaction makes them one write). */
export function insertImport(db: Db, row: ImportRow, lines: readonly { position: number; data: string }[]): void {
  db.query(
    `INSERT INTO imports (id, account_id, type, mode, state, prepared, local_domain, total, processed, imported, failed, created_at, finished_at)
     VALUES (@id, @account_id, @type, @mode, @state, @prepared, @local_domain, @total, @processed, @imported, @failed, @created_at, @finished_at)`,
  ).run({ ...row });
  const insert = db.query("INSERT INTO import_rows (import_id, position, data, state) VALUES (@import_id, @position, @data, 'pending')");
  for (const line of lines) insert.run({ import_id: row.id, position: line.position, data: line.data });
}

/** One of an account's imports. */
export function findOwnImport(db: Db, accountId: string, id: string): ImportRow | undefined {
  return db.query<ImportRow>('SELECT * FROM imports WHERE id = ? AND account_id = ?').get(id, accountId);
}

/** An import by id. */
export function findImport(db: Db, id: string): ImportRow | undefined {
  return db.query<ImportRow>('SELECT * FROM imports WHERE id = ?').get(id);
}

/** A page of an account's imports, newest first (keyset paging by id). */
export function importPage(db: Db, accountId: string, page: PageSql): ImportRow[] {
  return db.query<ImportRow>(`SELECT * FROM imports WHERE account_id = @account_id ${page.where} ${page.orderLimit}`).all({ account_id: accountId, ...page.params });
}

/** The oldest import that is not finished or cancelled: the one the job works on. */
export function nextUnfinishedImport(db: Db): ImportRow | undefined {
  return db.query<ImportRow>("SELECT * FROM imports WHERE state IN ('scheduled', 'in_progress') ORDER BY id LIMIT 1").get();
}

/** Marks an import started, and whether its overwrite step is done. */
export function markImportInProgress(db: Db, id: string, prepared: boolean): void {
  db.query("UPDATE imports SET state = 'in_progress', prepared = ? WHERE id = ? AND state IN ('scheduled', 'in_progress')").run(prepared ? 1 : 0, id);
}

/** Ends an import (finished, or cancelled by its owner); an import already ended stays as it is. */
export function endImport(db: Db, id: string, state: 'finished' | 'cancelled', at: number): boolean {
  return db.query("UPDATE imports SET state = ?, finished_at = ? WHERE id = ? AND state IN ('scheduled', 'in_progress')").run(state, at, id).changes > 0;
}

/** The next rows still to do, in file order. */
export function pendingImportLines(db: Db, importId: string, limit: number): ImportLineRow[] {
  return db.query<ImportLineRow>("SELECT * FROM import_rows WHERE import_id = ? AND state = 'pending' ORDER BY position LIMIT ?").all(importId, limit);
}

/** Every row of an import, done or not, in file order (what overwrite mode keeps). */
export function allImportLines(db: Db, importId: string): ImportLineRow[] {
  return db.query<ImportLineRow>('SELECT * FROM import_rows WHERE import_id = ? ORDER BY position').all(importId);
}

/**
 * Marks a pending row done and moves the import's counters with it; a row already done is left
 * alone (false), so no row counts twice.
 */
export function finishImportLine(db: Db, importId: string, position: number, outcome: { reason: string; message: string } | null): boolean {
  const state = outcome ? 'failed' : 'imported';
  const changed = db
    .query("UPDATE import_rows SET state = ?, reason = ?, message = ? WHERE import_id = ? AND position = ? AND state = 'pending'")
    .run(state, outcome?.reason ?? null, outcome?.message ?? null, importId, position).changes;
  if (changed === 0) return false;
  db.query(`UPDATE imports SET processed = processed + 1, ${outcome ? 'failed = failed + 1' : 'imported = imported + 1'} WHERE id = ?`).run(importId);
  return true;
}

/** A page of the rows that failed, in file order, from `offset`. */
export function failedImportLines(db: Db, importId: string, limit: number, offset: number): ImportLineRow[] {
  return db.query<ImportLineRow>("SELECT * FROM import_rows WHERE import_id = ? AND state = 'failed' ORDER BY position LIMIT ? OFFSET ?").all(importId, limit, offset);
}
