/**
 * The rate limits, as Mastodon applies them: its rack-attack throttles (the general API limits per
 * token, per user and per address, uploads, the media proxy, sign-ups, app registrations, paging,
 * deletions, sign-in attempts, confirmation mails) and the per-account families of its RateLimiter
 * (posting, following, reporting), with Mastodon's numbers. The owner scales them all with the
 * `rateLimitScale` setting. The engine that counts them is rate-limit.ts.
 */

/** What a rule looks at in a request. */
export interface RequestFacts {
  method: string;
  path: string;
  /** The valid token's id, if any. */
  tokenId: string | null;
  /** The user behind a valid user token, if any (an app-only token has none). */
  userId: string | null;
  /** The address bucket (see throttledAddress). */
  address: string;
  /** Whether the request pages (`page`, `min_id`, `max_id` or `since_id` given). */
  paging: boolean;
  /** The login a sign-in attempt names (lower-cased), once its body is read; null otherwise. */
  login: string | null;
}

/**
 * Which requests a rule can concern at all, so that a request is checked only against the rules
 * of its kind: the general API limits, paging, writes (any method but GET and HEAD), the media
 * proxy; `sign_in` rules are counted by the handlers that check a password (the sign-in page and
 * the password grant), which alone know the login.
 */
export type RuleGate = 'api' | 'paging' | 'write' | 'media_proxy' | 'sign_in';

/** One limit: at most `limit` requests per fixed window of `periodMs`, counted per `by`. */
export interface LimitRule {
  name: string;
  limit: number;
  periodMs: number;
  by: 'token' | 'user' | 'address' | 'login';
  gate: RuleGate;
  applies(facts: RequestFacts): boolean;
  /**
   * Counted only when the request succeeds (Mastodon's RateLimiter families: a status, a follow
   * or a report is counted once made): refused when used up, given back when the request fails.
   */
  onSuccess?: boolean;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Whether a path is the client API's (streaming aside: Mastodon's streaming server has no such limit). */
export const isApiPath = (path: string) => path.startsWith('/api/') && !path.startsWith('/api/v1/streaming');
const isApi = (f: RequestFacts) => isApiPath(f.path);
const post = (f: RequestFacts, pattern: RegExp) => f.method === 'POST' && pattern.test(f.path);

const MEDIA = /^\/api\/v\d+\/media$/i;
const DELETE_STATUS = /^\/api\/v1\/statuses\/\d+$/;
const UNREBLOG = /^\/api\/v1\/statuses\/\d+\/unreblog$/;
const CREATE_STATUS = /^\/api\/v1\/statuses$/;
const REBLOG = /^\/api\/v1\/statuses\/\d+\/reblog$/;
const FOLLOW = /^\/api\/v1\/accounts\/\d+\/follow$/;
const REPORT = /^\/api\/v1\/reports$/;
const SIGN_UP = /^\/api\/v1\/accounts$/;
const APPS = /^\/api\/v1\/apps$/;
const CONFIRMATIONS = /^\/api\/v1\/emails\/confirmations$/;

/**
 * Every limit the middleware counts, in order; a request is refused by the first one it has used
 * up. The general API limits come first, as in Mastodon: per token, per user, and per address for
 * requests without a user; then the limits of particular methods.
 */
export const RULES: readonly LimitRule[] = [
  { name: 'api/token', limit: 300, periodMs: 5 * MINUTE, gate: 'api', by: 'token', applies: (f) => f.tokenId !== null && isApi(f) },
  { name: 'api/user', limit: 1500, periodMs: 5 * MINUTE, gate: 'api', by: 'user', applies: (f) => f.userId !== null && isApi(f) },
  { name: 'api/address', limit: 300, periodMs: 5 * MINUTE, gate: 'api', by: 'address', applies: (f) => f.userId === null && isApi(f) },
  { name: 'media', limit: 30, periodMs: 30 * MINUTE, gate: 'write', by: 'user', applies: (f) => f.userId !== null && post(f, MEDIA) },
  { name: 'media_proxy', limit: 30, periodMs: 10 * MINUTE, gate: 'media_proxy', by: 'address', applies: (f) => f.path.startsWith('/media_proxy') },
  { name: 'sign_up', limit: 5, periodMs: 30 * MINUTE, gate: 'write', by: 'address', applies: (f) => post(f, SIGN_UP) },
  { name: 'paging/user', limit: 300, periodMs: 15 * MINUTE, gate: 'paging', by: 'user', applies: (f) => f.paging && f.userId !== null },
  { name: 'paging/address', limit: 300, periodMs: 15 * MINUTE, gate: 'paging', by: 'address', applies: (f) => f.paging && f.userId === null },
  {
    name: 'delete',
    limit: 30,
    periodMs: 30 * MINUTE,
    by: 'user',
    gate: 'write',
    applies: (f) => f.userId !== null && ((f.method === 'DELETE' && DELETE_STATUS.test(f.path)) || post(f, UNREBLOG)),
  },
  { name: 'apps/address', limit: 5, periodMs: 10 * MINUTE, gate: 'write', by: 'address', applies: (f) => post(f, APPS) },
  { name: 'email_confirmations/address', limit: 25, periodMs: 5 * MINUTE, gate: 'write', by: 'address', applies: (f) => post(f, CONFIRMATIONS) },
  { name: 'email_confirmations/user', limit: 5, periodMs: 30 * MINUTE, gate: 'write', by: 'user', applies: (f) => f.userId !== null && post(f, CONFIRMATIONS) },
  // Mastodon's RateLimiter families, counted per account once the status, follow or report is made.
  {
    name: 'statuses',
    limit: 300,
    periodMs: 3 * HOUR,
    gate: 'write',
    by: 'user',
    onSuccess: true,
    applies: (f) => f.userId !== null && (post(f, CREATE_STATUS) || post(f, REBLOG)),
  },
  { name: 'follows', limit: 400, periodMs: 24 * HOUR, gate: 'write', by: 'user', onSuccess: true, applies: (f) => f.userId !== null && post(f, FOLLOW) },
  { name: 'reports', limit: 400, periodMs: 24 * HOUR, gate: 'write', by: 'user', onSuccess: true, applies: (f) => f.userId !== null && post(f, REPORT) },
];

/**
 * The sign-in limits, counted by the sign-in page and the password grant (every attempt, right
 * or wrong): per address, and per login named (Mastodon's per e-mail address), so that neither
 * one address nor many can try passwords on one account quickly.
 */
export const SIGN_IN_RULES: readonly LimitRule[] = [
  { name: 'sign_in/address', limit: 25, periodMs: 5 * MINUTE, gate: 'sign_in', by: 'address', applies: () => true },
  { name: 'sign_in/login', limit: 25, periodMs: HOUR, gate: 'sign_in', by: 'login', applies: (f) => f.login !== null },
];
