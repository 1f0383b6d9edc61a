import type { Request, Response } from 'express';
import type { Deps } from '../../core/deps.js';
import { OAuthError } from '../../core/oauth/errors.js';
import { endWebSession, resolveWebSession, sameSecret, startWebSession, WEB_SESSION_TTL_MS, type WebSession } from '../../core/oauth/web-sessions.js';
import { randomSecret } from '../../core/oauth/tokens.js';
import { ApiError } from '../../util/errors.js';
import { hostName } from '../../util/hosts.js';
import type { Ctx } from '../routes.js';
import { sendPage } from './layout.js';
import { messagePage } from './messages.js';
import { recordSignInAddress } from '../../core/admin/accounts-ips.js';
import { requestAddress } from '../middleware/client-address.js';

/** Cookie of a signed-in browser (its value is a secret; only its hash is stored). */
export const SESSION_COOKIE = 'hearth_session';
/** Cookie holding the CSRF token of forms shown before signing in (double-submit). */
export const FORM_COOKIE = 'hearth_csrf';

/** Reads one cookie from the request. */
export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq === -1) continue;
    if (part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Whether cookies must be `Secure`: when the request reached us over TLS, or through the public
 * https origin (the relay or a TLS proxy in front). Plain loopback access keeps working.
 */
function secureRequest(deps: Deps, req: Request): boolean {
  if (req.secure) return true;
  const origin = deps.config.origin;
  if (!origin || !origin.startsWith('https:') || !req.headers.host) return false;
  return hostName(req.headers.host) === new URL(origin).hostname.toLowerCase();
}

/** Sets an httpOnly, SameSite=Lax cookie for the whole site; `maxAgeMs` null makes it a session cookie, 0 deletes it. */
export function setCookie(deps: Deps, req: Request, res: Response, name: string, value: string, maxAgeMs: number | null): void {
  const parts = [`${name}=${encodeURIComponent(value)}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (maxAgeMs !== null) parts.push(`Max-Age=${Math.floor(maxAgeMs / 1000)}`);
  if (secureRequest(deps, req)) parts.push('Secure');
  res.append('Set-Cookie', parts.join('; '));
}

/** The browser session of the request, if it is signed in. */
export function currentWebSession(ctx: Ctx): WebSession | null {
  return resolveWebSession(ctx.deps, readCookie(ctx.req, SESSION_COOKIE));
}

/** Signs the browser in as a user, replacing any session it had; returns the new CSRF token. */
export function beginWebSession(ctx: Ctx, userId: string): string {
  endWebSession(ctx.deps, readCookie(ctx.req, SESSION_COOKIE));
  const { cookie, session } = startWebSession(ctx.deps, userId);
  recordSignInAddress(ctx.deps, userId, requestAddress(ctx.req));
  setCookie(ctx.deps, ctx.req, ctx.res, SESSION_COOKIE, cookie, WEB_SESSION_TTL_MS);
  return session.csrf_token;
}

/**
 * The CSRF token for a form shown to a browser that is not signed in (login, setup): kept in a
 * cookie and repeated in the form, so a cross-site post, which cannot read the cookie, fails.
 */
export function formCsrfToken(ctx: Ctx): string {
  const existing = readCookie(ctx.req, FORM_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{32,64}$/.test(existing)) return existing;
  const token = randomSecret();
  setCookie(ctx.deps, ctx.req, ctx.res, FORM_COOKIE, token, null);
  return token;
}

/** True when a form post carries the CSRF token of its cookie. */
export function formCsrfValid(ctx: Ctx, given: string | undefined): boolean {
  return sameSecret(readCookie(ctx.req, FORM_COOKIE), given);
}

/** One string parameter of a form or query, or undefined when absent or not a string. */
export function field(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  return typeof value === 'string' ? value : undefined;
}

const TITLES: Record<number, string> = {
  400: 'Something is wrong with this request',
  401: 'Please sign in',
  403: 'Not allowed',
  404: 'Not found',
  422: 'Something is wrong with this request',
};

/** Renders an error as a page (for browser-facing routes, which must never answer JSON). */
export function sendErrorPage(res: Response, status: number, message: string): void {
  const title = TITLES[status] ?? 'Something went wrong';
  sendPage(res, messagePage(title, message), { title, status });
}

/**
 * Wraps a page handler so its errors become HTML pages: ApiErrors with their status and message
 * (OAuth errors with their description), anything else a logged 500.
 */
export function page(handler: (ctx: Ctx) => void | Promise<void>): (ctx: Ctx) => Promise<void> {
  return async (ctx) => {
    try {
      await handler(ctx);
    } catch (err) {
      if (ctx.res.headersSent) throw err;
      if (err instanceof OAuthError) sendErrorPage(ctx.res, err.status, err.description);
      else if (err instanceof ApiError) sendErrorPage(ctx.res, err.status, err.message);
      else {
        console.error('page failed', err);
        sendErrorPage(ctx.res, 500, 'The server could not finish this request.');
      }
    }
  };
}
