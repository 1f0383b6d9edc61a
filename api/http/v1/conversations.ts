import { listConversations, markConversationRead, markConversationUnread, presentConversations, removeConversation } from '../../core/timelines/conversations.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import type { Routes } from '../routes.js';

/**
 * Direct-message conversations: list (paged by last status, Link header), mark read or unread,
 * remove from the list.
 */
export function register(r: Routes): void {
  r.get('/api/v1/conversations', 'user', ['read:statuses'], (ctx) => {
    const page = parsePage(ctx.input);
    const rows = listConversations(ctx.deps, ctx.account.id, page);
    setLinkHeader(
      ctx.req,
      ctx.res,
      ctx.deps.uris.base,
      pageCursors(rows, (row) => row.last_status_id ?? row.id),
    );
    return presentConversations(ctx.deps, rows, ctx.account.id);
  });

  r.post('/api/v1/conversations/:id/read', 'user', ['write:conversations'], (ctx) =>
    markConversationRead(ctx.deps, ctx.account.id, String(ctx.req.params.id ?? '')),
  );

  r.post('/api/v1/conversations/:id/unread', 'user', ['write:conversations'], (ctx) =>
    markConversationUnread(ctx.deps, ctx.account.id, String(ctx.req.params.id ?? '')),
  );

  r.delete('/api/v1/conversations/:id', 'user', ['write:conversations'], (ctx) => {
    removeConversation(ctx.deps, ctx.account.id, String(ctx.req.params.id ?? ''));
    return {};
  });
}
