import { GRANT_TYPES } from '../../core/oauth/grants.js';
import { ALL_SCOPES } from '../../core/oauth/scopes.js';
import { issuer, userInfo } from '../../core/oauth/userinfo.js';
import type { Routes, UserCtx } from '../routes.js';

/**
 * `GET /.well-known/oauth-authorization-server` (RFC 8414, with Mastodon's
 * `app_registration_endpoint`) and `GET|POST /oauth/userinfo` (OIDC-style claims, `profile` scope).
 */
export function register(r: Routes): void {
  r.get('/.well-known/oauth-authorization-server', 'none', [], (ctx) => {
    const url = ctx.deps.uris.url;
    return {
      issuer: issuer(ctx.deps),
      service_documentation: 'https://docs.joinmastodon.org/',
      authorization_endpoint: url('/oauth/authorize'),
      token_endpoint: url('/oauth/token'),
      app_registration_endpoint: url('/api/v1/apps'),
      revocation_endpoint: url('/oauth/revoke'),
      userinfo_endpoint: url('/oauth/userinfo'),
      scopes_supported: ALL_SCOPES,
      response_types_supported: ['code'],
      // Answers go back in the redirect URI's query only.
      response_modes_supported: ['query'],
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: [...GRANT_TYPES],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    };
  });

  const claims = (ctx: UserCtx) => userInfo(ctx.deps, ctx.account);
  r.get('/oauth/userinfo', 'user', ['profile'], claims);
  r.post('/oauth/userinfo', 'user', ['profile'], claims);
}
