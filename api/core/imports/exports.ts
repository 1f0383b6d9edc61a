import {
  blockExportRows,
  bookmarkExportRows,
  domainBlockExportRows,
  followExportRows,
  listMemberExportRows,
  muteExportRows,
  type HandleRow,
} from '../../db/repos/exports.js';
import { parseStringList } from '../../db/repos/accounts.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { writeCsv } from './csv.js';

/** The files of Mastodon's Settings > Import and export, by name (without `.csv`). */
export const EXPORT_FILES = ['following_accounts', 'lists', 'blocked_accounts', 'muted_accounts', 'blocked_domains', 'bookmarks'] as const;

/** One of the export files. */
export type ExportFile = (typeof EXPORT_FILES)[number];

/** An account's address in a file: local accounts with this instance's host, as Mastodon writes them. */
function address(deps: Deps, row: HandleRow): string {
  return `${row.username}@${row.domain ?? deps.uris.domain}`;
}

const bool = (value: number) => (value ? 'true' : 'false');

/**
 * One of the account's export files as Mastodon writes it: following_accounts.csv and
 * muted_accounts.csv with their header line, the others without; follows, mutes, blocks and
 * bookmarks newest first; a follow's languages comma-separated; bookmarks by the post's ActivityPub
 * id. `deps.uris` is the request's, so a local-only instance writes the host it was reached at.
 */
export function exportCsv(deps: Deps, accountId: string, file: ExportFile): string {
  switch (file) {
    case 'following_accounts':
      return writeCsv([
        ['Account address', 'Show boosts', 'Notify on new posts', 'Languages'],
        ...followExportRows(deps.db, accountId).map((f) => {
          const languages = f.languages === null ? [] : parseStringList(f.languages);
          return [address(deps, f), bool(f.show_reblogs), bool(f.notify), languages.length ? languages.join(', ') : null];
        }),
      ]);
    case 'muted_accounts':
      return writeCsv([['Account address', 'Hide notifications'], ...muteExportRows(deps.db, accountId, now()).map((m) => [address(deps, m), bool(m.hide_notifications)])]);
    case 'blocked_accounts':
      return writeCsv(blockExportRows(deps.db, accountId).map((b) => [address(deps, b)]));
    case 'blocked_domains':
      return writeCsv(domainBlockExportRows(deps.db, accountId).map((d) => [d]));
    case 'lists':
      return writeCsv(listMemberExportRows(deps.db, accountId).map((m) => [m.title, address(deps, m)]));
    case 'bookmarks':
      return writeCsv(bookmarkExportRows(deps.db, accountId).map((b) => [b.local === 1 || b.uri === null ? deps.uris.statusUri(b.author_username, b.status_id) : b.uri]));
  }
}
