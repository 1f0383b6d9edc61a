import { getAccountForApi } from '../../core/accounts/read.js';
import { emailConfirmed, resendConfirmation } from '../../core/accounts/email-confirmation.js';
import { statusOEmbed } from '../../core/embeds/oembed.js';
import { translateStatus } from '../../core/statuses/translate.js';
import { ApiError, notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import type { Routes } from '../routes.js';

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
}

/**
 * Small methods clients call: oEmbed of a status, translation (no translation service here),
 * identity proofs (gone from Mastodon, answered empty), e-mail confirmation (every account is
 * confirmed), and async refreshes (Hearth starts none).
 */
export function register(r: Routes): void {
  r.get('/api/oembed', 'none', [], (ctx) => {
    const hosts = [ctx.deps.uris.domain, ctx.req.get('host') ?? ''].filter((h) => h !== '');
    return statusOEmbed(ctx.deps, text(ctx.input.url) ?? '', hosts, { maxwidth: text(ctx.input.maxwidth), maxheight: text(ctx.input.maxheight) });
  });

  r.post('/api/v1/statuses/:id/translate', 'app', ['read:statuses'], (ctx) => {
    const id = String(ctx.req.params.id ?? '');
    if (!isId(id)) throw notFound();
    return translateStatus(ctx.deps, id, ctx.auth?.account?.id ?? null);
  });

  // Identity proofs went with Mastodon's Keybase integration (3.5); the method answers an empty list.
  r.get('/api/v1/accounts/:id/identity_proofs', 'user', ['read:accounts'], (ctx) => {
    getAccountForApi(ctx.deps, String(ctx.req.params.id ?? ''));
    return [];
  });

  r.post('/api/v1/emails/confirmations', 'user', ['write:accounts'], (ctx) => resendConfirmation(ctx.user));
  r.get('/api/v1/emails/check_confirmation', 'user', ['read:accounts'], (ctx) => emailConfirmed(ctx.user));

  // Hearth does its work within the request (it never answers with a Mastodon-Async-Refresh
  // header), so no refresh id exists to ask about.
  r.get('/api/v1_alpha/async_refreshes/:id', 'user', ['read'], () => {
    throw new ApiError(404, 'Not Found');
  });
}
