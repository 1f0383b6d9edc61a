import { listMail, requireMailReader } from '../../core/mail/outbox.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import type { Routes } from '../routes.js';

/**
 * Hearth's own method (no Mastodon counterpart): the e-mail the instance wrote, newest first,
 * paged by id with a Link header: every message with its recipient, text and whether it went out
 * (`sent`, `queued`, `failed`) or is `kept` because no SMTP server is configured, so that the
 * owner can pass on a confirmation or password link by hand. The owner only (403 otherwise).
 */
export function register(r: Routes): void {
  r.get('/api/hearth/mail', 'user', ['read'], (ctx) => {
    requireMailReader(ctx.user);
    const mail = listMail(ctx.deps, parsePage(ctx.input, 20, 40));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(mail, (m) => m.id));
    return mail;
  });
}
