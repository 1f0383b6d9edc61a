import { Router, type Request, type Response } from 'express';
import type { Deps } from '../core/deps.js';
import type { AuthContext } from '../core/oauth/tokens.js';
import { scopeCovers } from '../core/oauth/scopes.js';
import type { AccountRow } from '../db/repos/accounts.js';
import type { UserRow } from '../db/repos/users.js';
import { ApiError, forbidden, unauthorized } from '../util/errors.js';
import { requestInput } from './middleware/body.js';
import { resolveAuth } from './middleware/auth.js';

/**
 * Who may call a route:
 * - `public`: no token needed; a token, if given, is still resolved so the viewer is known, and
 *   must be valid and carry the route's scope (Mastodon's `authorize_if_got_token!`).
 * - `user`: a user token with the scope; an app-only token answers 422 as Mastodon does.
 * - `app`: any valid token with the scope (app-only tokens included).
 * - `none`: the token is not looked at (OAuth endpoints, documents, pages).
 */
export type AuthMode = 'public' | 'user' | 'app' | 'none';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** What a route declares, besides its handler; the route table test reads these. */
export interface RouteInfo {
  method: Method;
  path: string;
  auth: AuthMode;
  /** Any one of these scopes is enough; empty means no scope check. */
  scopes: readonly string[];
}

/** Everything a handler gets. */
export interface Ctx {
  req: Request;
  res: Response;
  deps: Deps;
  /** The caller, when a valid token was given. */
  auth: AuthContext | null;
  /** Query, body and path parameters merged as Rails merges them. */
  input: Record<string, unknown>;
}

/** A handler's context on a `user` route: the caller is always a signed-in user. */
export interface UserCtx extends Ctx {
  auth: AuthContext & { user: UserRow; account: AccountRow };
  user: UserRow;
  account: AccountRow;
}

type Handler<C extends Ctx> = (ctx: C) => unknown;

/** The result of a handler that answers with a status other than 200 or extra headers. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/**
 * One route table per area: each route declares its method, path, auth mode and scope, and its
 * handler returns the JSON body (or a Reply). The table is kept so tests can walk every route.
 */
export class Routes {
  readonly table: RouteInfo[] = [];
  readonly router = Router();

  constructor(private readonly deps: Deps) {}

  get(path: string, auth: 'user', scopes: readonly string[], handler: Handler<UserCtx>): void;
  get(path: string, auth: Exclude<AuthMode, 'user'>, scopes: readonly string[], handler: Handler<Ctx>): void;
  get(path: string, auth: AuthMode, scopes: readonly string[], handler: Handler<never>): void {
    this.add('get', path, auth, scopes, handler as Handler<Ctx>);
  }

  post(path: string, auth: 'user', scopes: readonly string[], handler: Handler<UserCtx>): void;
  post(path: string, auth: Exclude<AuthMode, 'user'>, scopes: readonly string[], handler: Handler<Ctx>): void;
  post(path: string, auth: AuthMode, scopes: readonly string[], handler: Handler<never>): void {
    this.add('post', path, auth, scopes, handler as Handler<Ctx>);
  }

  put(path: string, auth: 'user', scopes: readonly string[], handler: Handler<UserCtx>): void;
  put(path: string, auth: Exclude<AuthMode, 'user'>, scopes: readonly string[], handler: Handler<Ctx>): void;
  put(path: string, auth: AuthMode, scopes: readonly string[], handler: Handler<never>): void {
    this.add('put', path, auth, scopes, handler as Handler<Ctx>);
  }

  patch(path: string, auth: 'user', scopes: readonly string[], handler: Handler<UserCtx>): void;
  patch(path: string, auth: Exclude<AuthMode, 'user'>, scopes: readonly string[], handler: Handler<Ctx>): void;
  patch(path: string, auth: AuthMode, scopes: readonly string[], handler: Handler<never>): void {
    this.add('patch', path, auth, scopes, handler as Handler<Ctx>);
  }

  delete(path: string, auth: 'user', scopes: readonly string[], handler: Handler<UserCtx>): void;
  delete(path: string, auth: Exclude<AuthMode, 'user'>, scopes: readonly string[], handler: Handler<Ctx>): void;
  delete(path: string, auth: AuthMode, scopes: readonly string[], handler: Handler<never>): void {
    this.add('delete', path, auth, scopes, handler as Handler<Ctx>);
  }

  private add(method: Method, path: string, auth: AuthMode, scopes: readonly string[], handler: Handler<Ctx>): void {
    this.table.push({ method, path, auth, scopes });
    const deps = this.deps;
    this.router[method](path, async (req, res, next) => {
      try {
        const ctx = authorize(deps, req, res, auth, scopes);
        const result = await handler(ctx);
        if (res.headersSent) return;
        if (result instanceof Reply) {
          for (const [k, v] of Object.entries(result.headers)) res.setHeader(k, v);
          res.status(result.status);
          if (result.body === undefined) res.end();
          else res.json(result.body);
          return;
        }
        res.json(result === undefined ? {} : result);
      } catch (err) {
        next(err);
      }
    });
  }
}

function authorize(deps: Deps, req: Request, res: Response, mode: AuthMode, scopes: readonly string[]): Ctx {
  const base: Ctx = { req, res, deps, auth: null, input: requestInput(req) };
  if (mode === 'none') return base;
  const { present, auth } = resolveAuth(deps, req);
  if (present && !auth) throw unauthorized();
  if (!auth) {
    if (mode === 'public') return base;
    throw unauthorized();
  }
  if (scopes.length > 0 && !scopes.some((s) => scopeCovers(auth.scopes, s))) {
    throw forbidden('This action is outside the authorized scopes');
  }
  if (mode === 'user') {
    if (!auth.user || !auth.account) throw new ApiError(422, 'This method requires an authenticated user');
    if (!auth.user.approved) throw forbidden('Your login is currently pending approval');
    return { ...base, auth, user: auth.user, account: auth.account } as UserCtx;
  }
  return { ...base, auth };
}
