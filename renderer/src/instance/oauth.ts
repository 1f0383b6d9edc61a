import { sha256 } from '@noble/hashes/sha2.js';
import { createOAuthAPIClient, createRestAPIClient } from 'masto';
import { addAccount } from './session';

/**
 * Signing in through the instance's own OAuth flow, as any Mastodon client does: the app
 * registers itself once (POST /api/v1/apps), sends the person to /oauth/authorize with PKCE (S256),
 * and exchanges the code that comes back to /callback for a token.
 */

export const SCOPES = 'read write follow push admin:read admin:write';
const APP_KEY = 'hearth.app';
const PENDING_KEY = 'hearth.oauth.pending';

interface RegisteredApp {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scopes: string;
}

interface Pending {
  state: string;
  verifier: string;
  /** Where to go once signed in. */
  returnTo: string;
}

/** The redirect URI of this app on this origin. */
export function redirectUri(): string {
  return `${location.origin}/callback`;
}

function base64url(bytes: Uint8Array): string {
  let text = '';
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function randomString(bytes = 32): string {
  return base64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

/**
 * base64url(SHA-256(verifier)). crypto.subtle exists only in secure contexts (https, localhost);
 * a family member on the LAN opens the app over plain http, so a JS SHA-256 stands in there.
 */
async function challengeOf(verifier: string): Promise<string> {
  const data = new TextEncoder().encode(verifier);
  if (globalThis.crypto?.subtle) return base64url(new Uint8Array(await crypto.subtle.digest('SHA-256', data)));
  return base64url(sha256(data));
}

async function registeredApp(): Promise<RegisteredApp> {
  const uri = redirectUri();
  try {
    const saved = JSON.parse(localStorage.getItem(APP_KEY) ?? 'null') as RegisteredApp | null;
    if (saved && saved.redirectUri === uri && saved.scopes === SCOPES) return saved;
  } catch {
    // A damaged record: register again.
  }
  const app = await createRestAPIClient({ url: location.origin }).v1.apps.create({
    clientName: 'Hearth',
    redirectUris: uri,
    scopes: SCOPES,
    website: location.origin,
  });
  const registered = { clientId: app.clientId ?? '', clientSecret: app.clientSecret ?? '', redirectUri: uri, scopes: SCOPES };
  localStorage.setItem(APP_KEY, JSON.stringify(registered));
  return registered;
}

/**
 * Sends the browser to the instance's sign-in and consent pages. `forceLogin` asks for the
 * sign-in form even when a browser session exists (adding a second family account).
 */
export async function beginSignIn(options: { forceLogin?: boolean; returnTo?: string } = {}): Promise<void> {
  const app = await registeredApp();
  const verifier = randomString(48);
  const pending: Pending = { state: randomString(16), verifier, returnTo: options.returnTo ?? '/' };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const url = new URL('/oauth/authorize', location.origin);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('redirect_uri', app.redirectUri);
  url.searchParams.set('scope', SCOPES);
  url.searchParams.set('state', pending.state);
  url.searchParams.set('code_challenge', await challengeOf(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  if (options.forceLogin) url.searchParams.set('force_login', 'true');
  location.assign(url.toString());
}

/**
 * Completes the flow on /callback: checks the state, exchanges the code with the PKCE verifier,
 * loads the account and stores it as the active one. Returns where to go next.
 */
export async function completeSignIn(search: string): Promise<string> {
  const params = new URLSearchParams(search);
  const pendingRaw = sessionStorage.getItem(PENDING_KEY);
  sessionStorage.removeItem(PENDING_KEY);
  const error = params.get('error');
  if (error) throw new Error(error === 'access_denied' ? 'Signing in was cancelled.' : (params.get('error_description') ?? error));
  const pending = pendingRaw ? (JSON.parse(pendingRaw) as Pending) : null;
  const code = params.get('code');
  if (!pending || !code || params.get('state') !== pending.state) throw new Error('This sign-in link has expired. Please sign in again.');
  const app = await registeredApp();
  // masto's token method has no PKCE verifier field: the exchange is a plain form POST.
  const res = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: app.clientId,
      client_secret: app.clientSecret,
      redirect_uri: app.redirectUri,
      code,
      code_verifier: pending.verifier,
      scope: SCOPES,
    }),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; scope?: string; error_description?: string };
  if (!res.ok || !body.access_token) throw new Error(body.error_description ?? 'The instance did not accept this sign-in. Please try again.');
  await storeSignedIn(body.access_token, body.scope ?? SCOPES);
  return pending.returnTo.startsWith('/') && !pending.returnTo.startsWith('//') ? pending.returnTo : '/';
}

/**
 * Loads the account a user token belongs to and keeps it as the active account on this device.
 * Fails (with the instance's status) when the token cannot be used yet, e.g. a sign-up waiting
 * for approval or for its e-mail address to be confirmed.
 */
export async function storeSignedIn(accessToken: string, scope: string): Promise<void> {
  const me = await createRestAPIClient({ url: location.origin, accessToken }).v1.accounts.verifyCredentials();
  addAccount({
    id: me.id,
    acct: me.acct,
    displayName: me.displayName || me.username,
    avatar: me.avatar,
    accessToken,
    scope,
  });
}

/**
 * An app token (client_credentials grant) for the calls an app makes before anyone is signed in,
 * such as signing up through `POST /api/v1/accounts`, as Mastodon clients do.
 */
export async function appAccessToken(): Promise<string> {
  const app = await registeredApp();
  const res = await fetch('/oauth/token', {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: app.clientId, client_secret: app.clientSecret, redirect_uri: app.redirectUri, scope: 'write' }),
  });
  const body = (await res.json().catch(() => ({}))) as { access_token?: string; error_description?: string };
  if (!res.ok || !body.access_token) throw new Error(body.error_description ?? 'The instance did not let this app sign you up. Please try again.');
  return body.access_token;
}

/** Revokes a token at the instance (signing out); a failure to reach it still signs out here. */
export async function revokeToken(accessToken: string): Promise<void> {
  try {
    const app = await registeredApp();
    await createOAuthAPIClient({ url: location.origin }).revoke({ clientId: app.clientId, clientSecret: app.clientSecret, token: accessToken });
  } catch {
    // Signing out on this device must not depend on the instance answering.
  }
}
