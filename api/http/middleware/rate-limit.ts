import type { Request, RequestHandler, Response } from 'express';
import type { Deps } from '../../core/deps.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import { resolveAuth } from './auth.js';
import { throttledAddress } from './client-address.js';
import { isApiPath, RULES, SIGN_IN_RULES, type LimitRule, type RequestFacts, type RuleGate } from './rate-limit-rules.js';

/** Mastodon's text for a refused request. */
export const TOO_MANY_REQUESTS = 'Too many requests';

/**
 * When the counters are pruned of past windows; beyond the hard cap (a flood of addresses named
 * through a proxy) they are dropped altogether rather than let memory grow.
 */
const PRUNE_AT = 10_000;
const HARD_CAP = 200_000;

interface Counter {
  window: number;
  count: number;
}

/** A rule with its limit scaled, its counters and the reset time of its current window. */
export class Throttle {
  readonly limit: number;
  readonly limitText: string;
  private readonly counters = new Map<string, Counter>();
  private pruneAt = PRUNE_AT;
  private resetWindow = -1;
  private resetText = '';

  constructor(
    readonly rule: LimitRule,
    scale: number,
  ) {
    this.limit = Math.max(1, Math.round(rule.limit * scale));
    this.limitText = String(this.limit);
  }

  /** The counter of `key` in the current window (a fixed window aligned on the epoch, as Mastodon's). */
  counter(key: string, at: number): Counter {
    const window = Math.floor(at / this.rule.periodMs);
    let counter = this.counters.get(key);
    if (counter === undefined) {
      if (this.counters.size >= this.pruneAt) this.prune(window);
      counter = { window, count: 0 };
      this.counters.set(key, counter);
    } else if (counter.window !== window) {
      counter.window = window;
      counter.count = 0;
    }
    return counter;
  }

  /** How many keys have a counter (past windows included until pruned). */
  get keys(): number {
    return this.counters.size;
  }

  /** The end of the current window, as Mastodon writes X-RateLimit-Reset (ISO 8601, microseconds). */
  reset(at: number): string {
    const window = Math.floor(at / this.rule.periodMs);
    if (window !== this.resetWindow) {
      this.resetWindow = window;
      this.resetText = new Date((window + 1) * this.rule.periodMs).toISOString().replace('Z', '000Z');
    }
    return this.resetText;
  }

  private prune(window: number): void {
    for (const [key, counter] of this.counters) if (counter.window !== window) this.counters.delete(key);
    if (this.counters.size >= HARD_CAP) this.counters.clear();
    // Not again before the map has doubled: a scan per new key would cost more than it frees.
    this.pruneAt = Math.max(PRUNE_AT, this.counters.size * 2);
  }
}

/** The limits of one instance: its throttles, scaled by the owner's setting, by the kind of request. */
class Limits {
  readonly byGate: Record<RuleGate, Throttle[]>;

  constructor(scale: number) {
    this.byGate = { api: [], paging: [], write: [], media_proxy: [], sign_in: [] };
    for (const rule of [...RULES, ...SIGN_IN_RULES]) this.byGate[rule.gate].push(new Throttle(rule, scale));
  }
}

const limitsOf = new WeakMap<Deps, Limits>();

function limits(deps: Deps): Limits {
  let l = limitsOf.get(deps);
  if (!l) {
    l = new Limits(deps.config.rateLimitScale);
    limitsOf.set(deps, l);
  }
  return l;
}

const PAGING = /[?&](?:page|min_id|max_id|since_id)=[^&]/;

function keyOf(rule: LimitRule, facts: RequestFacts): string | null {
  switch (rule.by) {
    case 'address':
      return facts.address;
    case 'token':
      return facts.tokenId;
    case 'user':
      return facts.userId;
    default:
      return facts.login;
  }
}

/**
 * One request's count: each rule it falls under is counted, and the one closest to its limit
 * (fewest requests left, as Mastodon picks it) is kept for the headers; the first one used up
 * refuses the request.
 */
class Tally {
  private closest: Throttle | null = null;
  private closestCount = 0;
  refusedBy: Throttle | null = null;

  constructor(
    private readonly res: Response,
    private readonly facts: RequestFacts,
    private readonly at: number,
  ) {}

  /** Counts the request under the given throttles that apply to it; false once one refuses it. */
  count(throttles: readonly Throttle[]): boolean {
    for (const throttle of throttles) {
      const rule = throttle.rule;
      if (!rule.applies(this.facts)) continue;
      const key = keyOf(rule, this.facts);
      if (key === null) continue;
      const counter = throttle.counter(key, this.at);
      if (rule.onSuccess) {
        if (counter.count >= throttle.limit) {
          this.refusedBy = throttle;
          return false;
        }
        counter.count += 1;
        giveBackOnFailure(this.res, counter);
      } else if (++counter.count > throttle.limit) {
        this.refusedBy = throttle;
        return false;
      }
      if (this.closest === null || throttle.limit - counter.count < this.closest.limit - this.closestCount) {
        this.closest = throttle;
        this.closestCount = counter.count;
      }
    }
    return true;
  }

  /** The X-RateLimit headers: of the refusing limit (nothing left), else of the closest one. */
  setHeaders(): void {
    const throttle = this.refusedBy ?? this.closest;
    if (throttle === null) return;
    const remaining = this.refusedBy ? 0 : Math.max(0, throttle.limit - this.closestCount);
    this.res.setHeader('X-RateLimit-Limit', throttle.limitText);
    this.res.setHeader('X-RateLimit-Remaining', String(remaining));
    this.res.setHeader('X-RateLimit-Reset', throttle.reset(this.at));
  }
}

/**
 * The rate limits (see rate-limit-rules.ts), before the body is read: each limit a request falls
 * under is counted; the first one used up answers 429 `{"error":"Too many requests"}`; otherwise
 * the answer carries X-RateLimit-Limit, -Remaining and -Reset of the limit closest to being used up.
 * Requests from apps on this machine are not limited (see throttledAddress); the caller is read
 * from the token in the header or the query (resolved once for the route too). Counters live in
 * memory: a restart starts them afresh.
 */
export function rateLimits(deps: Deps): RequestHandler {
  return (req, res, next) => {
    const address = throttledAddress(req);
    if (address === null) {
      next();
      return;
    }
    const l = limits(deps);
    const path = req.path;
    const api = isApiPath(path);
    const paging = req.url.includes('?') && PAGING.test(req.url);
    let tokenId: string | null = null;
    let userId: string | null = null;
    if (api || paging) {
      const { auth } = resolveAuth(deps, req, true);
      tokenId = auth?.token.id ?? null;
      userId = auth?.user?.id ?? null;
    }
    const facts: RequestFacts = { method: req.method, path, tokenId, userId, address, paging, login: null };
    const tally = new Tally(res, facts, now());
    // Each kind of rule only where it can apply: a plain API read is checked against three.
    const passed =
      (!api || tally.count(l.byGate.api)) &&
      (!path.startsWith('/media_proxy') || tally.count(l.byGate.media_proxy)) &&
      (!paging || tally.count(l.byGate.paging)) &&
      (req.method === 'GET' || req.method === 'HEAD' || tally.count(l.byGate.write));
    tally.setHeaders();
    next(passed ? undefined : new ApiError(429, TOO_MANY_REQUESTS));
  };
}

/** A request counted before it was made gives its count back when it fails (Mastodon's rollback). */
function giveBackOnFailure(res: Response, counter: Counter): void {
  const window = counter.window;
  res.once('finish', () => {
    if (res.statusCode >= 400 && counter.window === window && counter.count > 0) counter.count -= 1;
  });
}

/**
 * Counts an attempt to sign in with a password (the sign-in page, the password grant) under the
 * sign-in limits: per address, and per login named (lower-cased; an empty one counts only per
 * address). Throws 429 once one is used up. Apps on this machine are not limited.
 */
export function countSignInAttempt(deps: Deps, req: Request, res: Response, login: string): void {
  const address = throttledAddress(req);
  if (address === null) return;
  const named = login.trim().replace(/^@/, '').toLowerCase();
  const facts: RequestFacts = { method: req.method, path: req.path, tokenId: null, userId: null, address, paging: false, login: named || null };
  const tally = new Tally(res, facts, now());
  const passed = tally.count(limits(deps).byGate.sign_in);
  tally.setHeaders();
  if (!passed) throw new ApiError(429, TOO_MANY_REQUESTS);
}
