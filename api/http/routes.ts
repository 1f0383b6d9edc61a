import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { recordUserActivity } from '../core/admin/measures-activity.js';
import type { Deps } from '../core/deps.js';
import { openCommitGroup } from '../core/durability.js';
import { invalidToken } from '../core/oauth/errors.js';
import type { AuthContext } from '../core/oauth/tokens.js';
import { scopeCovers } from '../core/oauth/scopes.js';
import { ApiError, forbidden } from '../util/errors.js';
import { requestInput, type Admission } from './middleware/body.js';
import { resolveAuth } from './middleware/auth.js';
import { holdResponse, respond, sendAllowed } from './respond.js';
import { compilePath, RouteIndex } from './route-index.js';

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

/** The user and account behind a user token (row types reach http only through core). */
type SignedInUser = NonNullable<AuthContext['user']>;
type SignedInAccount = NonNullable<AuthContext['account']>;

/** A handler's context on a `user` route: the caller is always a signed-in user. */
export interface UserCtx extends Ctx {
  auth: AuthContext & { user: SignedInUser; account: SignedInAccount };
  user: SignedInUser;
  account: SignedInAccount;
}

type Handler<C extends Ctx> = (ctx: C) => unknown;

export { JsonText, Reply } from './respond.js';

/**
 * One route table per area: each route declares its method, path, auth mode and scope, and its
 * handler returns the JSON body (or a Reply). The table is kept so tests can walk every route.
 * `router` is the one Express middleware that dispatches them all (a Map lookup, not a walk
 * through every route's regular expression).
 */
export class Routes {
  readonly table: RouteInfo[] = [];
  private readonly index = new RouteIndex<Handler<Ctx>>();
  readonly router: RequestHandler;

  constructor(private readonly deps: Deps) {
    this.router = (req, res, next) => this.dispatch(req, res, next);
  }

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
    this.index.add({ index: this.index.all.length, method, auth, scopes, handler, ...compilePath(path) });
  }

  /**
   * What the body parser may do with a request, decided from its method, path and headers alone:
   * refuse it with the error its route's auth would answer (a missing or invalid token, a scope
   * it lacks), so that none of an upload is written before the refusal; read it without keeping
   * files when no route takes it; or read it.
   */
  admission(req: Request): Admission {
    let found: ReturnType<RouteIndex<Handler<Ctx>>['find']>;
    try {
      found = this.index.find(req.method, req.path);
    } catch {
      // A path the index refuses is answered by dispatch; no upload is kept for it.
      return { ok: true, keepFiles: false };
    }
    if (!found) return { ok: true, keepFiles: false };
    try {
      checkCaller(this.deps, req, found.entry.auth, found.entry.scopes);
    } catch (error) {
      return { ok: false, error };
    }
    return { ok: true, keepFiles: true };
  }

  private dispatch(req: Request, res: Response, next: NextFunction): void {
    let found: ReturnType<RouteIndex<Handler<Ctx>>['find']>;
    try {
      found = this.index.find(req.method, req.path);
    } catch (err) {
      next(err);
      return;
    }
    if (!found) {
      try {
        this.index.checkEscapes(req.path);
      } catch (err) {
        next(err);
        return;
      }
      // Express answers OPTIONS itself with the methods the path accepts (CORS preflights of
      // API paths never get here: the CORS middleware answers them).
      const allow = req.method === 'OPTIONS' ? this.index.allowed(req.path) : [];
      if (allow.length === 0) {
        next();
        return;
      }
      sendAllowed(res, allow);
      return;
    }
    const { entry, params } = found;
    req.params = params;
    // A request that may write runs its synchronous part in one commit group (one flush to disk
    // for the handler's commits and those of the event listeners it sets off), closed before
    // anything is answered.
    const group = entry.method === 'get' ? null : openCommitGroup(this.deps);
    const release = group ? holdResponse(res, group) : null;
    let result: unknown;
    try {
      const ctx = authorize(this.deps, req, res, entry.auth, entry.scopes);
      result = entry.handler(ctx);
    } catch (err) {
      try {
        group?.();
      } finally {
        release?.();
      }
      next(err);
      return;
    }
    try {
      group?.();
    } catch (err) {
      // Not durable, so not acknowledged: the error is the answer (a later result is dropped).
      if (result instanceof Promise) result.catch(() => undefined);
      next(err);
      return;
    } finally {
      release?.();
    }
    // Synchronous handlers answer at once; only a promise waits for a later turn.
    if (result instanceof Promise) {
      result.then(
        (value: unknown) => {
          try {
            respond(res, value);
          } catch (err) {
            next(err);
          }
        },
        (err: unknown) => next(err),
      );
      return;
    }
    try {
      respond(res, result);
    } catch (err) {
      next(err);
    }
  }
}

/**
 * The caller of a route, once its auth mode and scopes are satisfied (401/403/422 thrown
 * otherwise); null when the route needs none and none was given. Reads only the headers.
 */
/** The admin API (Mastodon's Api::V1::Admin and Api::V2::Admin). */
const ADMIN_PATH = /^\/api\/v[12]\/admin\//;

function checkCaller(deps: Deps, req: Request, mode: AuthMode, scopes: readonly string[]): AuthContext | null {
  if (mode === 'none') return null;
  const { present, auth, refusal } = resolveAuth(deps, req);
  if (present && !auth) throw invalidToken(refusal ?? 'unknown');
  if (!auth) {
    if (mode === 'public') return null;
    // Mastodon's admin controllers authorize through Pundit: a request without a token is refused
    // as any caller without the permission is, 403 "This action is not allowed".
    if (ADMIN_PATH.test(req.path)) throw forbidden();
    throw invalidToken();
  }
  if (scopes.length > 0 && !scopes.some((s) => scopeCovers(auth.scopes, s))) {
    throw forbidden('This action is outside the authorized scopes');
  }
  if (mode === 'user') {
    if (!auth.user || !auth.account) throw new ApiError(422, 'This method requires an authenticated user');
    if (auth.user.confirmed_at === null) throw forbidden('Your login is missing a confirmed e-mail address');
    if (!auth.user.approved) throw forbidden('Your login is currently pending approval');
  }
  return auth;
}

/** The handler's context, once the route's auth mode and scopes are satisfied (401/403/422 otherwise). */
function authorize(deps: Deps, req: Request, res: Response, mode: AuthMode, scopes: readonly string[]): Ctx {
  const auth = checkCaller(deps, req, mode, scopes);
  // Every request with a user's token counts as that user's activity today (the admin dashboard).
  if (auth?.user) recordUserActivity(deps, auth.user.id);
  const base: Ctx = { req, res, deps, auth, input: requestInput(req) };
  if (mode === 'user' && auth?.user && auth.account) return { ...base, auth, user: auth.user, account: auth.account } as UserCtx;
  return base;
}
