import { addAlias, confirmPassword, listAliases, moveAccount, removeAlias } from '../../core/accounts/move.js';
import { parse, required, str, z } from '../params.js';
import type { Routes } from '../routes.js';

// Handles are at most a username and a domain; actor URLs a little longer.
const aliasSchema = z.object({ alias: str(2048) });
const moveSchema = z.object({ password: str(1024), target_account: str(2048) });

/**
 * Account aliases and moves, as Pleroma and Akkoma expose them (Mastodon has only settings
 * pages, so clients use these): list, add and remove the aliases of the signed-in account
 * (`alsoKnownAs`), and move it to another account that lists it among its own aliases.
 */
export function register(r: Routes): void {
  r.get('/api/pleroma/aliases', 'user', ['read:accounts'], (ctx) => ({ aliases: listAliases(ctx.account) }));

  r.put('/api/pleroma/aliases', 'user', ['write:accounts'], async (ctx) => {
    const alias = required(parse(aliasSchema, ctx.input).alias?.trim(), 'alias');
    await addAlias(ctx.deps, ctx.account, alias);
    return { status: 'success' };
  });

  r.delete('/api/pleroma/aliases', 'user', ['write:accounts'], async (ctx) => {
    const alias = required(parse(aliasSchema, ctx.input).alias?.trim(), 'alias');
    await removeAlias(ctx.deps, ctx.account, alias);
    return { status: 'success' };
  });

  r.post('/api/pleroma/move_account', 'user', ['write:accounts'], async (ctx) => {
    const p = parse(moveSchema, ctx.input);
    const password = required(p.password, 'password');
    const target = required(p.target_account?.trim(), 'target_account');
    // The password first, as Pleroma: nothing about the target is revealed without it.
    await confirmPassword(ctx.user, password);
    await moveAccount(ctx.deps, ctx.account, target);
    return { status: 'success' };
  });
}
