import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import { Browser, type BrowserPage } from '../helpers/browser.js';
import type { TestClient } from '../helpers/client.js';

/** The redirect URI the test apps register: a site that is not the instance. */
export const REDIRECT = 'https://client.example/callback';
export const OOB = 'urn:ietf:wg:oauth:2.0:oob';

/** An app as POST /api/v1/apps answers it. */
export interface RegisteredApp {
  id: string;
  name: string;
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  scopes: string[];
}

/** Registers an app over HTTP. */
export async function registerApp(
  client: TestClient,
  options: { name?: string; redirectUris?: string | string[]; scopes?: string } = {},
): Promise<RegisteredApp> {
  const res = await client.post('/api/v1/apps', {
    client_name: options.name ?? 'Test client',
    redirect_uris: options.redirectUris ?? REDIRECT,
    scopes: options.scopes ?? 'read write follow push',
    website: 'https://client.example',
  });
  expect(res.status, res.text).toBe(200);
  return res.body as RegisteredApp;
}

/** The /oauth/authorize URL for an app. */
export function authorizePath(app: RegisteredApp, params: Record<string, string | undefined> = {}): string {
  const query = new URLSearchParams({ response_type: 'code', client_id: app.client_id, redirect_uri: app.redirect_uris[0] ?? REDIRECT });
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined) query.delete(k);
    else query.set(k, v);
  }
  return `/oauth/authorize?${query.toString()}`;
}

/** Signs in on the login page the browser is looking at. */
export function signIn(browser: Browser, page: BrowserPage, login: string, password: string): Promise<BrowserPage> {
  expect(page.forms[0]?.action, page.text.slice(0, 300)).toBe('/auth/sign_in');
  return browser.submit(page, { login, password }, { action: '/auth/sign_in' });
}

/**
 * Goes through the authorization pages as a person would: opens the authorize URL, signs in if
 * asked, then presses Authorize (or Deny) on the consent page. Returns the last page.
 */
export async function authorizeInBrowser(
  browser: Browser,
  path: string,
  user: { username: string; password: string },
  press: 'Authorize' | 'Deny' = 'Authorize',
): Promise<BrowserPage> {
  let page = await browser.get(path);
  if (page.forms[0]?.action === '/auth/sign_in') page = await signIn(browser, page, user.username, user.password);
  expect(page.status, page.text.slice(0, 500)).toBe(200);
  expect(page.forms[0]?.action).toBe('/oauth/authorize');
  return browser.submit(page, {}, { action: '/oauth/authorize', press });
}

/** The code from the redirect the consent page answered with. */
export function codeFromRedirect(page: BrowserPage): { code: string | null; state: string | null; url: URL } {
  expect(page.redirectedTo, `expected a redirect, got ${page.status}: ${page.text.slice(0, 300)}`).not.toBeNull();
  const url = new URL(page.redirectedTo ?? '');
  return { code: url.searchParams.get('code'), state: url.searchParams.get('state'), url };
}

/** A PKCE verifier and its S256 challenge. */
export function pkcePair(verifier = 'a'.repeat(20) + createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 40)) {
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** Exchanges a code at /oauth/token (form body). */
export function exchangeCode(client: TestClient, app: RegisteredApp, code: string, extra: Record<string, string> = {}) {
  return client.post('/oauth/token', undefined, {
    form: {
      grant_type: 'authorization_code',
      code,
      client_id: app.client_id,
      client_secret: app.client_secret,
      redirect_uri: app.redirect_uris[0] ?? REDIRECT,
      ...extra,
    },
  });
}

/** Runs the whole flow for a user and returns the token response body. */
export async function userToken(inst: { url: string; anon: TestClient }, app: RegisteredApp, user: { username: string; password: string }, scope?: string) {
  const browser = new Browser(inst.url);
  const page = await authorizeInBrowser(browser, authorizePath(app, { scope }), user);
  const { code } = codeFromRedirect(page);
  const res = await exchangeCode(inst.anon, app, code ?? '');
  expect(res.status, res.text).toBe(200);
  return res.body as { access_token: string; refresh_token: string; scope: string; created_at: number; token_type: string };
}
