import { AsyncLocalStorage } from 'node:async_hooks';
import type { Federation } from '@fedify/fedify';
import { Activity } from '@fedify/vocab';
import type { DocumentLoader } from '@fedify/vocab-runtime';

type FromJsonLd = typeof Activity.fromJsonLd;
type ParseOptions = NonNullable<Parameters<FromJsonLd>[1]>;
// The constructor behind `clone` takes the parse options (tracer, base URL); its type names fewer.
type CloneOptions = Parameters<Activity['clone']>[1];
/** What `clone` does not carry over and a parse sets (protected in the vocabulary's types). */
type Internals = { _cachedJsonLd: unknown; readonly _baseUrl: URL | undefined };

/** Activities kept, at most: those received and not yet taken by the inbox queue. */
const MAX_ACTIVITIES = 1000;
/** How long one is kept for the queue (a longer backlog, or a restart, parses anew). */
const KEEP_MS = 10 * 60 * 1000;

/** The loaders the objects of one parse use, switched to the reusing call's when it takes them. */
interface Loaders {
  documentLoader: DocumentLoader;
  contextLoader: DocumentLoader;
}

/** The first parse of one activity text. */
interface Parsed {
  readonly activity: Activity;
  /** Objects sharing its property arrays (`clone` shares them): all must be as parsed. */
  readonly holders: Activity[];
  readonly loaders: Loaders;
  readonly baseUrl: string | undefined;
  readonly at: number;
  /** Set once its request has answered: no object of the request is in use any more. */
  done: boolean;
}

/** Where a parse happens: an inbox request (which records), or an inbox message (which takes). */
type Side = { readonly queue: false; readonly seen: Map<object, Parsed> } | { readonly queue: true };

const side = new AsyncLocalStorage<Side>();
/** First parses by the JSON text parsed, oldest first. */
const parsedActivities = new Map<string, Parsed>();
let parsing: FromJsonLd | null = null;

function forgetExpired(at: number): void {
  for (const [text, entry] of parsedActivities) {
    if (at - entry.at <= KEEP_MS) return;
    parsedActivities.delete(text);
  }
}

/**
 * Whether a copy of the first parse is what parsing again would give: same base URL, still fresh,
 * and no lazy fetch stored into the shared arrays (every such store drops the object's cached
 * JSON, which a parse always sets on those recorded).
 */
function reusable(entry: Parsed, options: ParseOptions, at: number): boolean {
  return at - entry.at <= KEEP_MS && options.baseUrl?.href === entry.baseUrl && entry.holders.every((h) => (h as unknown as Internals)._cachedJsonLd !== undefined);
}

/** The first parse as a parse of `json` with `options` would give it: own loaders, own cached JSON. */
function copyOf(entry: Parsed, json: object, options: ParseOptions): Activity {
  const first = entry.activity as unknown as Internals;
  const loaders = { documentLoader: options.documentLoader, contextLoader: options.contextLoader, tracerProvider: options.tracerProvider };
  const copy = entry.activity.clone({}, { ...loaders, baseUrl: first._baseUrl } as CloneOptions);
  (copy as unknown as Internals)._cachedJsonLd = structuredClone(json);
  return copy;
}

/**
 * Parses an inbound activity once per JSON text. Fedify parses it three times: in the inbox
 * request for Object Integrity Proofs (`verifyObject`), again there once the HTTP signature is
 * verified, and once more when the inbox queue hands the message to the listeners; a JSON-LD
 * expansion and the vocabulary's decoding each time, about a quarter of a millisecond.
 *
 * In a request, the first parse is recorded under its JSON text, with loaders that forward to the
 * request's (the embedded objects keep them for their lazy fetches). The request's second parse,
 * of the same object, gets a copy (`clone`, with the caller's loaders). The queue's parse, of an
 * object read back from the queue, gets a copy when its JSON text is the one recorded and takes
 * the entry: the forwarding loaders then lead to the queue's, as a fresh parse would have them.
 * Copies share the first parse's property arrays; that is safe as one object at a time is in use
 * (the queue takes an entry only once its request has answered), and an entry whose objects
 * stored a lazy fetch in them is not reused. Anything else goes to Fedify.
 */
function parseOnce(original: FromJsonLd): FromJsonLd {
  return async function (this: typeof Activity, json: unknown, options: ParseOptions = {}): Promise<Activity> {
    const where = side.getStore();
    const { documentLoader, contextLoader } = options;
    if (where === undefined || this !== Activity || typeof json !== 'object' || json === null || Array.isArray(json) || !documentLoader || !contextLoader || '_fromSubclass' in options) {
      return original.call(this, json, options);
    }
    const text = JSON.stringify(json);
    const at = Date.now();
    forgetExpired(at);
    const known = parsedActivities.get(text);
    if (where.queue) {
      if (known === undefined || !known.done || !reusable(known, options, at)) return original.call(this, json, options);
      parsedActivities.delete(text);
      known.loaders.documentLoader = documentLoader;
      known.loaders.contextLoader = contextLoader;
      return copyOf(known, json, options);
    }
    // The same object again in the same request (Fedify's second parse): the first one is as good.
    if (known !== undefined && where.seen.get(json) === known && reusable(known, options, at)) {
      const copy = copyOf(known, json, options);
      known.holders.push(copy);
      return copy;
    }
    const loaders: Loaders = { documentLoader, contextLoader };
    const activity = await original.call(this, json, {
      ...options,
      documentLoader: (url, o) => loaders.documentLoader(url, o),
      contextLoader: (url, o) => loaders.contextLoader(url, o),
    });
    // Without its cached JSON, a later lazy fetch into it could not be told from none.
    if ((activity as unknown as Internals)._cachedJsonLd === undefined) return activity;
    const entry: Parsed = { activity, holders: [activity], loaders, baseUrl: options.baseUrl?.href, at, done: false };
    parsedActivities.delete(text);
    parsedActivities.set(text, entry);
    where.seen.set(json, entry);
    if (parsedActivities.size > MAX_ACTIVITIES) parsedActivities.delete(parsedActivities.keys().next().value as string);
    return activity;
  } as FromJsonLd;
}

function isInboxMessage(message: unknown): boolean {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === 'inbox';
}

/**
 * Lets the inbox queue reuse the activity its request has parsed (see `parseOnce`). Fedify offers
 * no option for it, so three things are hooked: the federation's `fetch` (public) marks POSTs as
 * inbox requests, its `processQueuedTask` (not public) marks inbox messages, and
 * `Activity.fromJsonLd` (shared by every federation in the process, wrapped once) records or
 * reuses parses where marked. Signature, key owner and actor checks run as before, on objects
 * equal to a fresh parse. Should a later Fedify rename those internals, nothing breaks: it is
 * merely as slow as before. Returns whether the hooks are in place.
 */
export function reuseParsedActivities(federation: Federation<unknown>): boolean {
  type Task = (contextData: unknown, message: unknown) => Promise<void>;
  const impl = federation as unknown as { fetch?: Federation<unknown>['fetch']; processQueuedTask?: Task };
  const fetch = impl.fetch;
  const task = impl.processQueuedTask;
  if (typeof fetch !== 'function' || typeof task !== 'function' || typeof Activity.fromJsonLd !== 'function') return false;
  if (parsing === null || Activity.fromJsonLd !== parsing) {
    parsing = parseOnce(Activity.fromJsonLd);
    Activity.fromJsonLd = parsing;
  }
  impl.fetch = (async (request: Request, options: Parameters<Federation<unknown>['fetch']>[1]) => {
    if (request.method !== 'POST') return fetch.call(impl, request, options);
    const seen = new Map<object, Parsed>();
    try {
      return await side.run({ queue: false, seen }, () => fetch.call(impl, request, options));
    } finally {
      for (const entry of seen.values()) entry.done = true;
    }
  }) as Federation<unknown>['fetch'];
  impl.processQueuedTask = (contextData, message) =>
    isInboxMessage(message) ? side.run({ queue: true }, () => task.call(impl, contextData, message)) : task.call(impl, contextData, message);
  return true;
}
