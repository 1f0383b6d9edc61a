import { timingSafeEqual } from 'node:crypto';
import { findAppByClientId, findAppById, insertApp, type AppRow } from '../../db/repos/oauth.js';
import { now } from '../../util/clock.js';
import { unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { isKnownScope, parseScopes, scopeCovers } from './scopes.js';
import { hashSecret, randomSecret } from './tokens.js';

/** The redirect URI that asks for the code to be shown instead of redirecting. */
export const OOB_REDIRECT_URI = 'urn:ietf:wg:oauth:2.0:oob';

/** The scope an app or a token gets when none is asked for. */
export const DEFAULT_SCOPE = 'read';

export const APP_NAME_MAX = 60;
export const APP_URL_MAX = 2000;

// Schemes that a browser would execute or read locally rather than hand to an app.
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'vbscript:', 'file:', 'blob:', 'about:']);

/** What `POST /api/v1/apps` asks for, before validation. */
export interface NewApplication {
  name: string | undefined;
  /** Newline- or whitespace-separated, or a list. */
  redirectUris: string | readonly string[] | undefined;
  /** Space-separated; `read` when absent or blank. */
  scopes: string | undefined;
  website: string | undefined;
}

/** An application just registered, with its secret (only ever returned here). */
export interface RegisteredApplication {
  app: AppRow;
  clientSecret: string;
}

/** Splits the registered redirect URIs (one per line). */
export function appRedirectUris(app: AppRow): string[] {
  return app.redirect_uris.split('\n').filter(Boolean);
}

/** The scopes an application registered. */
export function appScopes(app: AppRow): string[] {
  return parseScopes(app.scopes);
}

/**
 * Checks a redirect URI as Doorkeeper does for Mastodon: `urn:ietf:wg:oauth:2.0:oob` or an
 * absolute URI without a fragment; custom schemes (mobile apps) are allowed, schemes a browser
 * would run itself are not. Returns the problem, or null.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri === OOB_REDIRECT_URI) return null;
  if (uri.length > APP_URL_MAX) return `Redirect URI is too long (maximum is ${APP_URL_MAX} characters)`;
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return 'Redirect URI must be an absolute URI.';
  }
  if (FORBIDDEN_SCHEMES.has(parsed.protocol)) return 'Redirect URI must be a valid URI.';
  if (uri.includes('#')) return 'Redirect URI cannot contain a fragment.';
  return null;
}

function splitRedirectUris(value: string | readonly string[] | undefined): string[] {
  const list = typeof value === 'string' ? [value] : (value ?? []);
  return list.flatMap((v) => v.split(/\s+/)).filter(Boolean);
}

/**
 * True when every requested scope is known and within the allowed ones; a granular scope is
 * within its parent (`read:statuses` within `read`), since it grants less.
 */
export function scopesWithin(requested: readonly string[], allowed: readonly string[]): boolean {
  const granted = new Set(allowed);
  return requested.every((s) => isKnownScope(s) && scopeCovers(granted, s));
}

/**
 * Registers a client application (Mastodon's `POST /api/v1/apps`): validates the name, redirect
 * URIs, scopes and website, all problems reported at once as a 422, and stores it with a new
 * client id and secret. The secret is kept only as a hash.
 */
export function createApplication(deps: Deps, input: NewApplication): RegisteredApplication {
  const problems: string[] = [];
  const name = (input.name ?? '').trim();
  if (!name) problems.push("Application name can't be blank");
  else if (name.length > APP_NAME_MAX) problems.push(`Application name is too long (maximum is ${APP_NAME_MAX} characters)`);

  const redirectUris = [...new Set(splitRedirectUris(input.redirectUris))];
  if (redirectUris.length === 0) problems.push("Redirect URI can't be blank");
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) {
      problems.push(problem);
      break;
    }
  }

  const scopes = parseScopes(input.scopes?.trim() ? input.scopes : DEFAULT_SCOPE);
  if (!scopes.every(isKnownScope)) problems.push("Scopes doesn't match configured on the server.");

  const website = input.website?.trim() ? input.website.trim() : null;
  if (website !== null && !isWebUrl(website)) problems.push('Application website is invalid');
  else if (website !== null && website.length > APP_URL_MAX) problems.push(`Application website is too long (maximum is ${APP_URL_MAX} characters)`);

  if (problems.length > 0) throw unprocessable(problems.join(', '));

  const clientSecret = randomSecret();
  const at = now();
  const app: AppRow = {
    id: newId(at),
    name,
    website,
    redirect_uris: redirectUris.join('\n'),
    scopes: scopes.join(' '),
    client_id: randomSecret(),
    client_secret: hashSecret(clientSecret),
    owner_user_id: null,
    created_at: at,
  };
  insertApp(deps.db, app);
  return { app, clientSecret };
}

function isWebUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/** Finds an application by client id (no authentication: for the authorization page). */
export function findApplication(deps: Deps, clientId: string | undefined): AppRow | null {
  if (!clientId) return null;
  return findAppByClientId(deps.db, clientId) ?? null;
}

/** The application behind a token, or null for tokens made without one. */
export function applicationById(deps: Deps, id: string | null): AppRow | null {
  if (id === null) return null;
  return findAppById(deps.db, id) ?? null;
}

/**
 * Authenticates a client by id and secret (compared in constant time); null when the client is
 * unknown or the secret is wrong, so callers cannot tell the two apart.
 */
export function authenticateClient(deps: Deps, clientId: string | undefined, clientSecret: string | undefined): AppRow | null {
  if (!clientId || !clientSecret) return null;
  const app = findAppByClientId(deps.db, clientId);
  const given = Buffer.from(hashSecret(clientSecret), 'hex');
  const stored = Buffer.from(app?.client_secret ?? hashSecret(''), 'hex');
  const match = given.length === stored.length && timingSafeEqual(given, stored);
  return app && match ? app : null;
}

/** The client id of the application that tokens made by `hearth token` belong to. */
export const CLI_CLIENT_ID = 'hearth-cli';

/**
 * One of Hearth's own applications (the command line's, the desktop app's), found by its client id
 * or made on first use. Its secret is never known: nobody can use it as an OAuth client; its
 * tokens are issued by Hearth itself and answer apps/verify_credentials like a client's.
 */
export function internalApplication(deps: Deps, clientId: string, name: string, scopes: readonly string[]): AppRow {
  const existing = findAppByClientId(deps.db, clientId);
  if (existing) return existing;
  const at = now();
  const app: AppRow = {
    id: newId(at),
    name,
    website: null,
    redirect_uris: OOB_REDIRECT_URI,
    scopes: scopes.join(' '),
    client_id: clientId,
    client_secret: hashSecret(randomSecret()),
    owner_user_id: null,
    created_at: at,
  };
  insertApp(deps.db, app);
  return app;
}

/** The command line's application (made by migration 0085; made again here if it was deleted). */
export function commandLineApplication(deps: Deps): AppRow {
  return internalApplication(deps, CLI_CLIENT_ID, 'Hearth command line', ['profile', 'read', 'write', 'follow', 'push', 'admin:read', 'admin:write']);
}
