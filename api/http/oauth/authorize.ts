import {
  AuthorizationError,
  checkAuthorizationRequest,
  createAuthorizationCode,
  isOutOfBand,
  redirectWith,
  type AuthorizationParams,
  type AuthorizationRequest,
} from '../../core/oauth/authorization.js';
import { oauthErrorDescription } from '../../core/oauth/errors.js';
import { sameSecret, type WebSession } from '../../core/oauth/web-sessions.js';
import { consentPage } from '../pages/consent.js';
import { cspSourceFor, sendPage } from '../pages/layout.js';
import { codePage, messagePage } from '../pages/messages.js';
import { currentWebSession, field, page, sendErrorPage } from '../pages/web.js';
import { bool } from '../params.js';
import type { Ctx, Routes } from '../routes.js';
import { showLogin } from './sign-in.js';

const PARAM_NAMES = ['response_type', 'client_id', 'redirect_uri', 'scope', 'state', 'code_challenge', 'code_challenge_method'] as const;

function authorizationParams(input: Record<string, unknown>): AuthorizationParams {
  const out: AuthorizationParams = {};
  for (const name of PARAM_NAMES) out[name] = field(input, name);
  return out;
}

/** The GET URL of an authorization request (without `force_login`), to come back to after signing in. */
function authorizeUrl(params: AuthorizationParams, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams();
  for (const name of PARAM_NAMES) {
    const value = params[name];
    if (value !== undefined) query.set(name, value);
  }
  for (const [k, v] of Object.entries(extra)) query.set(k, v);
  return `/oauth/authorize?${query.toString()}`;
}

/**
 * Answers a refused request: back to the client's redirect URI with `error` and `state` once that
 * URI is known to be registered, otherwise (unknown client, unregistered URI, oob) as a page.
 */
function refuse(ctx: Ctx, err: unknown): void {
  if (!(err instanceof AuthorizationError)) throw err;
  if (err.redirectUri && !isOutOfBand(err.redirectUri)) {
    ctx.res.redirect(302, redirectWith(err.redirectUri, { error: err.code, error_description: err.description, state: err.state }));
    return;
  }
  sendErrorPage(ctx.res, 400, err.description);
}

function check(ctx: Ctx, params: AuthorizationParams): AuthorizationRequest | null {
  try {
    return checkAuthorizationRequest(ctx.deps, params);
  } catch (err) {
    refuse(ctx, err);
    return null;
  }
}

function showConsent(ctx: Ctx, request: AuthorizationRequest, params: AuthorizationParams, web: WebSession): void {
  const target = isOutOfBand(request.redirectUri) ? null : cspSourceFor(request.redirectUri);
  const body = consentPage({
    appName: request.app.name,
    appWebsite: request.app.website,
    handle: `@${web.account.username}@${ctx.deps.uris.domain}`,
    scopes: request.scopes,
    csrfToken: web.session.csrf_token,
    params: {
      client_id: request.app.client_id,
      redirect_uri: request.redirectUri,
      scope: request.scopes.join(' '),
      state: request.state,
      code_challenge: request.codeChallenge,
      code_challenge_method: request.codeChallengeMethod,
    },
    switchAccountUrl: authorizeUrl(params, { force_login: 'true' }),
  });
  sendPage(ctx.res, body, { title: `Authorize ${request.app.name}`, formTargets: target ? [target] : [] });
}

/**
 * `GET /oauth/authorize` shows the sign-in form (no session, or `force_login`) or the consent
 * form; `POST /oauth/authorize` records the decision: a code sent to the redirect URI (or shown,
 * for oob), or `error=access_denied`. `lang` is accepted; pages are in English for now.
 */
export function register(r: Routes): void {
  r.get(
    '/oauth/authorize',
    'none',
    [],
    page((ctx) => {
      const params = authorizationParams(ctx.input);
      const request = check(ctx, params);
      if (!request) return;
      const forceLogin = bool().safeParse(ctx.input.force_login).data === true;
      const web = currentWebSession(ctx);
      if (!web || forceLogin) {
        showLogin(ctx, { returnTo: authorizeUrl(params), appName: request.app.name });
        return;
      }
      showConsent(ctx, request, params, web);
    }),
  );

  r.post(
    '/oauth/authorize',
    'none',
    [],
    page((ctx) => {
      const params = authorizationParams(ctx.input);
      const web = currentWebSession(ctx);
      if (!web) {
        showLogin(ctx, { returnTo: authorizeUrl(params), error: 'Your session has ended. Please sign in again.', status: 401 });
        return;
      }
      if (!sameSecret(web.session.csrf_token, field(ctx.input, 'csrf_token'))) {
        sendErrorPage(ctx.res, 403, 'This form has expired or did not come from this site. Go back to the app and try again.');
        return;
      }
      const request = check(ctx, params);
      if (!request) return;
      const decision = field(ctx.input, 'decision');
      const oob = isOutOfBand(request.redirectUri);
      if (decision === 'approve') {
        const code = createAuthorizationCode(ctx.deps, request, web.user.id);
        if (oob) sendPage(ctx.res, codePage(request.app.name, code), { title: 'Authorization code' });
        else ctx.res.redirect(302, redirectWith(request.redirectUri, { code, state: request.state }));
        return;
      }
      if (decision === 'deny') {
        if (oob) {
          sendPage(ctx.res, messagePage('Authorization denied', `${request.app.name} was not given access to your account.`), { title: 'Authorization denied' });
        } else {
          ctx.res.redirect(302, redirectWith(request.redirectUri, { error: 'access_denied', error_description: oauthErrorDescription('access_denied'), state: request.state }));
        }
        return;
      }
      sendErrorPage(ctx.res, 400, 'Choose Authorize or Deny.');
    }),
  );
}
