import { applicationById, createApplication } from '../../core/oauth/apps.js';
import { vapidPublicKey } from '../../core/oauth/vapid.js';
import { toMastodonApplication, toMastodonCredentialApplication } from '../../serializers/application.js';
import { notFound } from '../../util/errors.js';
import { arrayOf, parse, str, z } from '../params.js';
import type { Routes } from '../routes.js';

const createSchema = z.object({
  client_name: str(),
  // A string (URIs separated by newlines or spaces) or a list of URIs.
  redirect_uris: arrayOf(z.string()),
  // Space-separated; a list is accepted too.
  scopes: arrayOf(z.string()),
  website: str(),
});

/** `POST /api/v1/apps` registers a client; `GET /api/v1/apps/verify_credentials` shows the caller's app. */
export function register(r: Routes): void {
  r.post('/api/v1/apps', 'none', [], (ctx) => {
    const p = parse(createSchema, ctx.input);
    const { app, clientSecret } = createApplication(ctx.deps, {
      name: p.client_name,
      redirectUris: p.redirect_uris,
      scopes: p.scopes?.join(' '),
      website: p.website,
    });
    return toMastodonCredentialApplication(app, clientSecret, vapidPublicKey(ctx.deps));
  });

  r.get('/api/v1/apps/verify_credentials', 'app', [], (ctx) => {
    // Tokens made outside OAuth (the CLI, tests) belong to no application.
    const app = applicationById(ctx.deps, ctx.auth?.applicationId ?? null);
    if (!app) throw notFound();
    return toMastodonApplication(app, vapidPublicKey(ctx.deps));
  });
}
