import { EXPORT_FILES, exportCsv, type ExportFile } from '../../core/imports/exports.js';
import type { Routes } from '../routes.js';

/** The scope each file needs: what it reveals. */
const SCOPES: Record<ExportFile, string> = {
  following_accounts: 'read:follows',
  lists: 'read:lists',
  blocked_accounts: 'read:blocks',
  muted_accounts: 'read:mutes',
  blocked_domains: 'read:blocks',
  bookmarks: 'read:bookmarks',
};

/**
 * Hearth's own export of an account's data (no Mastodon API counterpart: Mastodon offers these
 * files on its settings pages), for moving house: `GET /api/hearth/exports/<file>.csv` for
 * following_accounts, lists, blocked_accounts, muted_accounts, blocked_domains and bookmarks, in
 * Mastodon's CSV formats, as a download (`text/csv`, `Content-Disposition: attachment`).
 */
export function register(r: Routes): void {
  for (const file of EXPORT_FILES) {
    r.get(`/api/hearth/exports/${file}.csv`, 'user', [SCOPES[file]], (ctx) => {
      const body = Buffer.from(exportCsv(ctx.deps, ctx.account.id, file), 'utf8');
      ctx.res.status(200);
      ctx.res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      ctx.res.setHeader('Content-Disposition', `attachment; filename="${file}.csv"`);
      ctx.res.setHeader('Cache-Control', 'private, no-store');
      ctx.res.setHeader('Content-Length', body.length);
      ctx.res.end(body);
    });
  }
}
