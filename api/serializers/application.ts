import type { AppRow } from '../db/repos/oauth.js';

/** Mastodon's Application entity. */
export interface MastodonApplication {
  id: string;
  name: string;
  website: string | null;
  scopes: string[];
  /** Deprecated: the registered URIs joined by newlines. */
  redirect_uri: string;
  redirect_uris: string[];
  /** Deprecated: the instance's Web Push key. */
  vapid_key: string;
}

/** Mastodon's CredentialApplication entity: an Application with its client credentials. */
export interface MastodonCredentialApplication extends MastodonApplication {
  client_id: string;
  client_secret: string;
  /** Always 0: client secrets do not expire. */
  client_secret_expires_at: number;
}

/** The Application entity of an app row (`GET /api/v1/apps/verify_credentials`). */
export function toMastodonApplication(app: AppRow, vapidKey: string): MastodonApplication {
  const uris = app.redirect_uris.split('\n').filter(Boolean);
  return {
    id: app.id,
    name: app.name,
    website: app.website,
    scopes: app.scopes.split(' ').filter(Boolean),
    redirect_uri: uris.join('\n'),
    redirect_uris: uris,
    vapid_key: vapidKey,
  };
}

/**
 * The CredentialApplication entity returned once by `POST /api/v1/apps`; the secret is passed in
 * because only its hash is stored.
 */
export function toMastodonCredentialApplication(app: AppRow, clientSecret: string, vapidKey: string): MastodonCredentialApplication {
  return {
    ...toMastodonApplication(app, vapidKey),
    client_id: app.client_id,
    client_secret: clientSecret,
    client_secret_expires_at: 0,
  };
}
