import type { ImportType } from '../../db/repos/imports.js';
import { ApiError } from '../../util/errors.js';
import { LIST_TITLE_MAX } from '../lists/manage.js';
import { charLength } from '../filters/problems.js';
import { normalizeUserDomain } from '../relationships/blocks.js';
import { CsvError, parseCsv, type CsvRecord } from './csv.js';

/**
 * The CSV files of Mastodon's Settings > Import and export, read as its importer reads them: a
 * first line whose first cell is a known column name ("Account address", "#domain", "#uri",
 * "List name") is a header naming the columns; any other first line is data, read with the type's
 * default columns (the address; the domain; the URL; list name and address). Beyond Mastodon, every
 * value is checked at upload, so a file of the wrong kind is refused with its line (a domain where
 * an address belongs, a missing list title) instead of failing row by row later.
 */

/** The import types, as `type` names them. */
export const IMPORT_TYPES: readonly ImportType[] = ['following', 'lists', 'blocks', 'mutes', 'domain_blocks', 'bookmarks'];

/** Rows one file may hold (Mastodon's limit). */
export const MAX_IMPORT_ROWS = 20_000;

/** Largest file accepted, in bytes (Mastodon's limit). */
export const MAX_IMPORT_BYTES = 20 * 1024 * 1024;

/** One row's values, as stored for the job (only the members its type uses). */
export interface ImportRowData {
  /** `user` or `user@domain`, without a leading @. */
  acct?: string;
  /** following: null when the file does not say (the follow's default or current value stays). */
  show_reblogs?: boolean | null;
  notify?: boolean | null;
  languages?: string[] | null;
  /** mutes: null when the file does not say (notifications are then hidden, Mastodon's default). */
  hide_notifications?: boolean | null;
  domain?: string;
  uri?: string;
  list?: string;
}

/** A row ready to store: its line in the file and its values. */
export interface ParsedRow {
  line: number;
  data: ImportRowData;
}

const KNOWN_FIRST_HEADERS = new Set(['Account address', '#domain', '#uri', 'List name']);

/** The columns a file of each type must have (and the ones a file without a header has). */
const DEFAULT_COLUMNS: Record<ImportType, readonly string[]> = {
  following: ['Account address'],
  blocks: ['Account address'],
  mutes: ['Account address'],
  domain_blocks: ['#domain'],
  bookmarks: ['#uri'],
  lists: ['List name', 'Account address'],
};

/** The columns each type reads, beyond the required ones. */
const OPTIONAL_COLUMNS: Record<ImportType, readonly string[]> = {
  following: ['Show boosts', 'Notify on new posts', 'Languages'],
  blocks: [],
  mutes: ['Hide notifications'],
  domain_blocks: [],
  bookmarks: [],
  lists: [],
};

/** What the person reads about a type's files. */
const TYPE_FILES: Record<ImportType, string> = {
  following: 'following_accounts.csv',
  blocks: 'blocked_accounts.csv',
  mutes: 'muted_accounts.csv',
  domain_blocks: 'blocked_domains.csv',
  bookmarks: 'bookmarks.csv',
  lists: 'lists.csv',
};

/** A 422 about the uploaded file, Mastodon-style (`data` is the attribute). */
export function invalidData(description: string, code = 'ERR_INVALID'): ApiError {
  return new ApiError(422, `Validation failed: Data ${description}`, { extra: { details: { data: [{ error: code, description }] } } });
}

// ActiveModel's boolean cast, which Mastodon's importer applies: blank is "not said".
const FALSE_WORDS = new Set(['0', 'f', 'false', 'off', 'n', 'no']);
function csvBool(value: string | undefined): boolean | null {
  const v = (value ?? '').trim();
  if (v === '') return null;
  return !FALSE_WORDS.has(v.toLowerCase());
}

const ACCT = /^[^\s@,/]+(?:@[^\s@,/]+)?$/;

/** An account address as the importer reads it (spaces and a leading @ dropped); null when it is none. */
function readAcct(value: string | undefined): string | null {
  const acct = (value ?? '').trim().replace(/^@/, '');
  return ACCT.test(acct) ? acct : null;
}

function quoted(value: string | undefined): string {
  const v = (value ?? '').trim();
  return v === '' ? 'an empty value' : `"${v.length > 80 ? `${v.slice(0, 80)}…` : v}"`;
}

/** Reads one record's values for the type; a message naming the problem when it cannot. */
function readRow(type: ImportType, cell: (column: string) => string | undefined, allowPort: boolean): ImportRowData | string {
  if (type === 'domain_blocks') {
    const raw = cell('#domain');
    try {
      return { domain: normalizeUserDomain(raw, allowPort) };
    } catch {
      return `${quoted(raw)} is not a domain`;
    }
  }
  if (type === 'bookmarks') {
    const uri = (cell('#uri') ?? '').trim();
    const ok = URL.canParse(uri) && ['http:', 'https:'].includes(new URL(uri).protocol);
    return ok ? { uri } : `${quoted(uri)} is not the address of a post (an http or https URL)`;
  }
  const acct = readAcct(cell('Account address'));
  if (acct === null) return `${quoted(cell('Account address'))} is not an account address (user@domain)`;
  if (type === 'following') {
    const languages = (cell('Languages') ?? '')
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean);
    return { acct, show_reblogs: csvBool(cell('Show boosts')), notify: csvBool(cell('Notify on new posts')), languages: languages.length ? languages : null };
  }
  if (type === 'mutes') return { acct, hide_notifications: csvBool(cell('Hide notifications')) };
  if (type === 'lists') {
    const list = (cell('List name') ?? '').trim();
    if (list === '') return 'the list name is empty';
    if (charLength(list) > LIST_TITLE_MAX) return `the list name is too long (maximum is ${LIST_TITLE_MAX} characters)`;
    return { list, acct };
  }
  return { acct };
}

/**
 * Reads an uploaded file for an import of `type`: its rows, each checked, or a 422 that says what
 * is wrong (not CSV, empty, columns of another kind of file, a value that cannot be right, more
 * than 20,000 rows). `allowPort` accepts `host:port` domains (the loopback test switch).
 */
export function parseImportFile(type: ImportType, text: string, allowPort: boolean): ParsedRow[] {
  let records: CsvRecord[];
  try {
    // One more than the limit is enough to know the file is over it (and the header row).
    records = parseCsv(text, MAX_IMPORT_ROWS + 2);
  } catch (err) {
    if (err instanceof CsvError) throw invalidData(`is not a valid CSV file: ${err.message}`);
    throw err;
  }
  // Lines of nothing but spaces and commas carry no row.
  records = records.filter((r) => r.fields.some((f) => f.trim() !== ''));
  if (records.length === 0) throw invalidData('is an empty file', 'ERR_BLANK');
  const first = records[0];
  const hasHeader = first !== undefined && KNOWN_FIRST_HEADERS.has((first.fields[0] ?? '').trim());
  const columns = hasHeader && first ? first.fields.map((f) => f.trim()) : DEFAULT_COLUMNS[type];
  const missing = DEFAULT_COLUMNS[type].filter((c) => !columns.includes(c));
  if (missing.length > 0) {
    throw invalidData(`does not fit this import type: a ${TYPE_FILES[type]} file needs the column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`);
  }
  const rows = hasHeader ? records.slice(1) : records;
  if (rows.length > MAX_IMPORT_ROWS) throw invalidData(`has more than ${MAX_IMPORT_ROWS.toLocaleString('en')} rows`, 'ERR_TOO_LONG');
  const wanted = [...DEFAULT_COLUMNS[type], ...OPTIONAL_COLUMNS[type]];
  const index = new Map(wanted.map((c) => [c, columns.indexOf(c)]));
  return rows.map((record) => {
    const cell = (column: string) => {
      const at = index.get(column) ?? -1;
      return at < 0 ? undefined : record.fields[at];
    };
    const data = readRow(type, cell, allowPort);
    if (typeof data === 'string') throw invalidData(`does not fit this import type: on line ${record.line}, ${data}`);
    return { line: record.line, data };
  });
}
