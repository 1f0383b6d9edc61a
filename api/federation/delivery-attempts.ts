// One delivery attempt on the delivery thread, as real servers need it: the second knock (the
// request signed the other way) only after an answer that says the signature was refused, the
// signature format remembered for a server only once it worked, and each failed attempt logged
// once and recorded for the owner (see listFailingPeers).
import { AsyncLocalStorage } from 'node:async_hooks';
import { SendActivityError, type FederationOptions, type KvKey, type KvStore } from '@fedify/fedify';
import type { Db } from '../db/connection.js';
import { clearDeliveryFailures, failingInboxes, recordDeliveryFailure } from '../db/repos/delivery-failures.js';
import { now } from '../util/clock.js';
import { groupCommitFor } from './group-commit.js';

/** Answers after which the same request signed the other way (RFC 9421 or draft-cavage) may pass. */
const SIGNATURE_REFUSED = new Set([401, 403]);

/** How much of an answer is kept for a second knock that is not sent (Fedify reads 1 KiB of it). */
const HELD_BYTES = 4096;

/** How much of a failed answer is logged and recorded. */
export const ERROR_TEXT_CHARS = 300;

/**
 * Where the delivery thread remembers, per server, the signature format that worked: apart from
 * Fedify's default place, which the main thread's signed fetches also write (after any failure of
 * their second knock, a 404 included), so that deliveries are signed RFC 9421 first only where
 * draft-cavage was refused and RFC 9421 then accepted.
 */
export const DELIVERY_SPEC_PREFIX: KvKey = ['_hearth', 'deliverySignatureSpec'];

/** An answer kept to be given again, without a request, to a second knock. */
interface HeldAnswer {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: Uint8Array<ArrayBuffer>;
}

/** What is known of the outbox message being handled. */
interface Attempt {
  readonly inbox: string;
  /** Fedify's count of earlier attempts (0 for the first). */
  readonly attempt: number;
  readonly activityType: string;
  /** First answers that a second knock would only repeat, by `METHOD url`. */
  readonly held: Map<string, HeldAnswer>;
  /** The status of the latest answer of each origin. */
  readonly lastStatus: Map<string, number>;
  /** A POST was answered 2xx. */
  delivered: boolean;
  /** Fedify reported the attempt as failed (onOutboxError). */
  failed: boolean;
}

const current = new AsyncLocalStorage<Attempt>();

function attemptOf(message: unknown): Attempt | null {
  if (typeof message !== 'object' || message === null) return null;
  const m = message as { type?: unknown; inbox?: unknown; attempt?: unknown; activityType?: unknown };
  if (m.type !== 'outbox' || typeof m.inbox !== 'string') return null;
  return {
    inbox: m.inbox,
    attempt: typeof m.attempt === 'number' ? m.attempt : 0,
    // Fedify names the type by its IRI (…/activitystreams#Follow).
    activityType: typeof m.activityType === 'string' ? (m.activityType.split('#').pop() ?? m.activityType) : 'activity',
    held: new Map(),
    lastStatus: new Map(),
    delivered: false,
    failed: false,
  };
}

function originOf(url: string): string {
  return URL.canParse(url) ? new URL(url).origin : url;
}

async function readSome(response: Response, max: number): Promise<Uint8Array<ArrayBuffer>> {
  const out = new Uint8Array(max);
  let size = 0;
  if (!response.body) return out.subarray(0, 0);
  const reader = response.body.getReader();
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      const part = value.subarray(0, max - size);
      out.set(part, size);
      size += part.length;
    }
  } finally {
    // The rest of a long error page is not wanted.
    await reader.cancel().catch(() => {});
  }
  return out.subarray(0, size);
}

function answerOf(held: HeldAnswer): Response {
  return new Response(held.body.length > 0 ? held.body : null, { status: held.status, statusText: held.statusText, headers: held.headers });
}

let installed = false;

/**
 * Sends the second knock of a delivery only after a 401 or 403. Fedify's double knock signs a
 * request again the other way after any answer from 400 up: a peer that is down (500, 503) or
 * refuses the activity itself (400, 404, 410) got every delivery twice, and the second answer
 * made Fedify remember RFC 9421 for that server, whose later deliveries were then signed that way
 * first (which several servers accept and drop). Fedify has no option for this, so `fetch` of the
 * delivery thread is wrapped: within an outbox message (see DeliveryAttempts.run), the first
 * answer of 400 and up other than 401 and 403 is kept, and the next request to the same URL, the
 * second knock, gets it again without going out. Outside a message `fetch` is untouched. Should a
 * later Fedify stop knocking twice after such answers, the kept answer is simply never used.
 * Returns whether the wrapping took place (once per thread).
 */
export function knockTwiceOnlyAfterRefusal(): boolean {
  if (installed) return false;
  installed = true;
  const send = globalThis.fetch.bind(globalThis);
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const attempt = current.getStore();
    if (!attempt) return send(input, init);
    const url = input instanceof Request ? input.url : String(input);
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const key = `${method} ${url}`;
    const held = attempt.held.get(key);
    if (held) {
      attempt.held.delete(key);
      attempt.lastStatus.set(originOf(url), held.status);
      return answerOf(held);
    }
    const response = await send(input, init);
    attempt.lastStatus.set(originOf(url), response.status);
    if (response.ok && method === 'POST') attempt.delivered = true;
    if (response.status < 400 || SIGNATURE_REFUSED.has(response.status)) return response;
    const headers: [string, string][] = [];
    // The body is given decoded and shortened: its length and encoding no longer hold.
    response.headers.forEach((value, name) => {
      if (name !== 'content-length' && name !== 'content-encoding') headers.push([name, value]);
    });
    const kept: HeldAnswer = { status: response.status, statusText: response.statusText, headers, body: await readSome(response, HELD_BYTES) };
    attempt.held.set(key, kept);
    return answerOf(kept);
  };
  return true;
}

function isSpecKey(key: KvKey): boolean {
  return key.length === DELIVERY_SPEC_PREFIX.length + 1 && DELIVERY_SPEC_PREFIX.every((part, i) => key[i] === part);
}

/**
 * The delivery thread's key-value store, which keeps Fedify from remembering a signature format
 * for a server (under DELIVERY_SPEC_PREFIX, Fedify's `httpMessageSignaturesSpec` prefix on that
 * thread) unless the server's latest answer in this attempt was a success: Fedify remembers the
 * second knock's format whatever that knock was answered, short of 400 and 401.
 */
export function rememberSpecOnSuccess(kv: KvStore): KvStore {
  const set: KvStore['set'] = (key, value, options) => {
    const attempt = current.getStore();
    const origin = key[key.length - 1];
    const status = attempt && typeof origin === 'string' ? attempt.lastStatus.get(origin) : undefined;
    if (attempt && isSpecKey(key) && (status === undefined || status >= 300)) return Promise.resolve();
    return kv.set(key, value, options);
  };
  return new Proxy(kv, {
    get(target, property) {
      if (property === 'set') return set;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** The start of an answer or error as one line of at most ERROR_TEXT_CHARS characters. */
function snippet(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > ERROR_TEXT_CHARS ? `${line.slice(0, ERROR_TEXT_CHARS)}…` : line;
}

/** The HTTP status and the start of the answer of a failed delivery (status null: no answer). */
function describe(error: Error): { status: number | null; text: string } {
  if (error instanceof SendActivityError) return { status: error.statusCode, text: snippet(error.responseBody) };
  // A network error: Fedify's FetchError names the URL, its cause the reason (refused, reset…).
  const reasons = [error.message];
  for (let cause: unknown = error.cause, depth = 0; cause instanceof Error && depth < 3; cause = cause.cause, depth++) {
    if (!reasons.some((r) => r.includes(cause.message))) reasons.push(cause.message);
  }
  return { status: null, text: snippet(reasons.join(': ')) };
}

/**
 * The outcome of each delivery attempt on the delivery thread: `run` handles an outbox message as
 * one attempt; `onOutboxError` (Fedify's option, called once per failed attempt) logs one line
 * (inbox, status, the start of the answer) and adds the failure to the inbox's row of
 * `delivery_failures`; an attempt that delivered clears that row.
 */
export class DeliveryAttempts {
  /** Inboxes with a row in delivery_failures (only this thread writes them). */
  private readonly failing: Set<string>;

  constructor(private readonly db: Db) {
    this.failing = new Set(failingInboxes(db));
  }

  /** Runs an outbox message's handler as one attempt (other messages are run as they are). */
  async run(message: unknown, handle: () => Promise<void>): Promise<void> {
    const attempt = attemptOf(message);
    if (!attempt) return handle();
    await current.run(attempt, handle);
    if (attempt.delivered && !attempt.failed && this.failing.delete(attempt.inbox)) {
      // Committed with the deletion of the message (the next group commit), as a cache: a power
      // cut that loses it leaves an old failure listed until the next delivery there.
      void groupCommitFor(this.db)
        .write(() => void clearDeliveryFailures(this.db, attempt.inbox), { durable: false })
        .catch((err: unknown) => console.error('federation: could not clear the delivery failures of', attempt.inbox, err));
    }
  }

  /** Fedify's `onOutboxError`: one log line and one recorded failure per failed attempt. */
  readonly onOutboxError: NonNullable<FederationOptions<unknown>['onOutboxError']> = (error) => {
    const attempt = current.getStore();
    const inbox = error instanceof SendActivityError ? error.inbox.href : attempt?.inbox;
    if (attempt) attempt.failed = true;
    const { status, text } = describe(error);
    const what = attempt ? `${attempt.activityType} ` : '';
    const n = attempt ? ` (attempt ${attempt.attempt + 1})` : '';
    console.error(`federation: delivery of ${what}to ${inbox ?? 'an unknown inbox'} failed${n}: ${status ?? 'no answer'}${text ? ` ${text}` : ''}`);
    if (!inbox || !URL.canParse(inbox)) return;
    this.failing.add(inbox);
    const failure = { inbox, host: new URL(inbox).host, at: now(), status, error: text };
    void groupCommitFor(this.db)
      .write(() => recordDeliveryFailure(this.db, failure), { durable: false })
      .catch((err: unknown) => console.error('federation: could not record the delivery failure to', inbox, err));
  };
}
