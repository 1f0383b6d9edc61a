import { getAccountForApi } from '../../core/accounts/read.js';
import { emailConfirmed } from '../../core/accounts/email-confirmation.js';
import { resendConfirmation, signUpUser } from '../../core/mail/account-mail.js';
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
 * identity proofs (gone from Mastodon, answered empty), e-mail confirmation (the link mailed
 * again, core/mail/account-mail.ts), and async refreshes (Hearth starts none).
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

  // Any token with the scope: the user it names is not confirmed yet, which `user` routes refuse.
  r.post('/api/v1/emails/confirmations', 'app', ['write:accounts'], (ctx) => {
    if (!ctx.auth) throw new ApiError(401, 'The access token is invalid');
    return resendConfirmation(ctx.deps, ctx.auth, text(ctx.input.email));
  });
  r.get('/api/v1/emails/check_confirmation', 'app', ['read:accounts'], (ctx) => {
    if (!ctx.auth) throw new ApiError(401, 'The access token is invalid');
    return emailConfirmed(signUpUser(ctx.auth));
  });

  // Hearth does its work within the request (it never answers with a Mastodon-Async-Refresh
  // header), so no refresh id exists to ask about.
  r.get('/api/v1_alpha/async_refreshes/:id', 'user', ['read'], () => {
    throw new ApiError(404, 'Not Found');
  });
}
