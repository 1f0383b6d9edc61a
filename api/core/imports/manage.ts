import type { AccountRow } from '../../db/repos/accounts.js';
import {
  endImport,
  failedImportLines,
  findOwnImport,
  importPage,
  insertImport,
  type ImportMode,
  type ImportRow,
  type ImportType,
} from '../../db/repos/imports.js';
import { pageSql, type PageBounds } from '../../db/paging.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { parseImportFile } from './formats.js';
import { kickImports } from './runner.js';

/** What can be imported and how (the repository's names, for the HTTP layer). */
export type { ImportMode, ImportType };

/** The import entity of Hearth's API. */
export interface ImportEntity {
  id: string;
  type: ImportType;
  mode: ImportMode;
  state: ImportRow['state'];
  total: number;
  processed: number;
  imported: number;
  failed: number;
  created_at: string;
  finished_at: string | null;
}

/** A row the job could not do, and why. */
export interface ImportFailure {
  /** The row's line in the file (1 is the first line, the header when there is one). */
  line: number;
  /** What the row names: the account address, domain or post URL (with the list: `title: address`). */
  value: string;
  /** A code: account_not_found, domain_unreachable, domain_blocked, federation_off, status_not_found, not_allowed, invalid, limit_reached, error. */
  reason: string;
  /** The same, for a person. */
  message: string;
}

/** An import as the API shows it. */
export function toImportEntity(row: ImportRow): ImportEntity {
  return {
    id: row.id,
    type: row.type,
    mode: row.mode,
    state: row.state,
    total: row.total,
    processed: row.processed,
    imported: row.imported,
    failed: row.failed,
    created_at: new Date(row.created_at).toISOString(),
    finished_at: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
  };
}

/** What an upload gives. */
export interface ImportInput {
  type: ImportType;
  mode: ImportMode;
  /** The file's text (UTF-8). */
  text: string;
  /** The host the uploader reached the instance at: `user@host` rows of it name local accounts. */
  localDomain: string;
}

/**
 * Stores an uploaded file as an import: every row is checked first (422 and nothing stored when
 * one cannot be right), then the import and all its rows are written in one transaction, and the
 * job is woken. Returns the new import.
 */
export function createImport(deps: Deps, account: AccountRow, input: ImportInput): ImportRow {
  const rows = parseImportFile(input.type, input.text, deps.config.federationAllowLoopback);
  const at = now();
  const row: ImportRow = {
    id: newId(at),
    account_id: account.id,
    type: input.type,
    mode: input.mode,
    state: 'scheduled',
    prepared: input.mode === 'merge' ? 1 : 0,
    local_domain: input.localDomain.toLowerCase(),
    total: rows.length,
    processed: 0,
    imported: 0,
    failed: 0,
    created_at: at,
    finished_at: null,
  };
  deps.db.transaction(() =>
    insertImport(
      deps.db,
      row,
      rows.map((r) => ({ position: r.line, data: JSON.stringify(r.data) })),
    ),
  );
  kickImports(deps);
  return row;
}

/** One of the account's imports; 404 for anyone else's. */
export function getImport(deps: Deps, accountId: string, id: string): ImportRow {
  const row = findOwnImport(deps.db, accountId, id);
  if (!row) throw notFound();
  return row;
}

/** A page of the account's imports, newest first. */
export function listImports(deps: Deps, accountId: string, page: PageBounds): ImportRow[] {
  const p = pageSql('id', page);
  const rows = importPage(deps.db, accountId, p);
  if (p.reverse) rows.reverse();
  return rows;
}

/** Describes what a stored row names, for the failures list. */
function describeRow(data: string): string {
  const d = JSON.parse(data) as { acct?: string; domain?: string; uri?: string; list?: string };
  if (d.list !== undefined) return `${d.list}: ${d.acct ?? ''}`;
  return d.acct ?? d.domain ?? d.uri ?? '';
}

/** The rows of one of the account's imports that failed, in file order, with why. */
export function listImportFailures(deps: Deps, accountId: string, id: string, limit: number, offset: number): ImportFailure[] {
  const row = getImport(deps, accountId, id);
  return failedImportLines(deps.db, row.id, limit, offset).map((l) => ({
    line: l.position,
    value: describeRow(l.data),
    reason: l.reason ?? 'error',
    message: l.message ?? '',
  }));
}

/**
 * Cancels one of the account's imports that has not finished: the job stops before its next row
 * (what is done stays done). An import that has ended is 422.
 */
export function cancelImport(deps: Deps, accountId: string, id: string): ImportRow {
  const row = getImport(deps, accountId, id);
  if (!endImport(deps.db, row.id, 'cancelled', now())) throw new ApiError(422, `This import has already ${row.state === 'cancelled' ? 'been cancelled' : 'finished'}`);
  return getImport(deps, accountId, id);
}
