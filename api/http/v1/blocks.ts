import { presentAccounts } from '../../core/accounts/views.js';
import { blockAccount, blockDomain, listBlocks, listDomainBlocks, unblockAccount, unblockDomain } from '../../core/relationships/blocks.js';
import { listMutes, muteAccount, unmuteAccount } from '../../core/relationships/mutes.js';
import { loadRelationship } from '../../core/relationships/relationships.js';
import { toMastodonMutedAccount } from '../../serializers/muted-account.js';
import { toMastodonRelationship } from '../../serializers/relationship.js';
import { pageCursors, parsePage, setLinkHeader } from '../middleware/pagination.js';
import { bool, int, parse, str, z } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';
import { accountIdParam } from './follows.js';

const muteSchema = z.object({
  notifications: bool(),
  // Seconds; 0 (the default) is a mute without end. Negative values are refused; a century is the cap.
  duration: int(0, 100 * 365 * 86_400),
});

const domainSchema = z.object({ domain: str(253 * 4) });

/** Answers with the viewer's relationship to the account of the path, after an action. */
function relationshipAfter(ctx: UserCtx, action: (id: string) => void) {
  const id = accountIdParam(ctx);
  action(id);
  return toMastodonRelationship(loadRelationship(ctx.deps, ctx.account.id, id));
}

/**
 * Blocks, mutes and domain blocks of the signed-in user: block/unblock and mute/unmute an account
 * (answering the Relationship), the lists of blocked and muted accounts and of blocked domains
 * (paged with Link headers), and blocking or unblocking a domain.
 */
export function register(r: Routes): void {
  r.post('/api/v1/accounts/:id/block', 'user', ['write:blocks'], (ctx) => relationshipAfter(ctx, (id) => blockAccount(ctx.deps, ctx.account, id)));
  r.post('/api/v1/accounts/:id/unblock', 'user', ['write:blocks'], (ctx) => relationshipAfter(ctx, (id) => unblockAccount(ctx.deps, ctx.account, id)));

  r.post('/api/v1/accounts/:id/mute', 'user', ['write:mutes'], (ctx) => {
    const p = parse(muteSchema, ctx.input);
    return relationshipAfter(ctx, (id) => muteAccount(ctx.deps, ctx.account, id, { notifications: p.notifications, duration: p.duration }));
  });
  r.post('/api/v1/accounts/:id/unmute', 'user', ['write:mutes'], (ctx) => relationshipAfter(ctx, (id) => unmuteAccount(ctx.deps, ctx.account, id)));

  r.get('/api/v1/blocks', 'user', ['read:blocks'], (ctx) => {
    const entries = listBlocks(ctx.deps, ctx.account.id, parsePage(ctx.input, 40, 80));
    // Mastodon pages blocks and mutes back with since_id.
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(entries, (e) => e.block_id), 'since_id');
    return presentAccounts(ctx.deps, entries.map((e) => e.account_id));
  });

  r.get('/api/v1/mutes', 'user', ['read:mutes'], (ctx) => {
    const mutes = listMutes(ctx.deps, ctx.account.id, parsePage(ctx.input, 40, 80));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(mutes, (m) => m.id), 'since_id');
    const accounts = new Map(presentAccounts(ctx.deps, mutes.map((m) => m.target_account_id)).map((a) => [a.id, a]));
    return mutes.flatMap((m) => {
      const account = accounts.get(m.target_account_id);
      return account ? [toMastodonMutedAccount(account, m.expires_at)] : [];
    });
  });

  r.get('/api/v1/domain_blocks', 'user', ['read:blocks'], (ctx) => {
    const blocks = listDomainBlocks(ctx.deps, ctx.account.id, parsePage(ctx.input, 100, 200));
    setLinkHeader(ctx.req, ctx.res, ctx.deps.uris.base, pageCursors(blocks, (b) => b.id));
    return blocks.map((b) => b.domain);
  });
  r.post('/api/v1/domain_blocks', 'user', ['write:blocks'], (ctx) => {
    blockDomain(ctx.deps, ctx.account, parse(domainSchema, ctx.input).domain);
    return {};
  });
  r.delete('/api/v1/domain_blocks', 'user', ['write:blocks'], (ctx) => {
    unblockDomain(ctx.deps, ctx.account, parse(domainSchema, ctx.input).domain);
    return {};
  });
}
