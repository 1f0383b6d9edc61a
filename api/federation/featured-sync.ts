import type { Context } from '@fedify/fedify';
import { Collection, Create, Hashtag, Note, Object as ApObject, Question, Update } from '@fedify/vocab';
import type { DocumentLoader, RemoteDocument } from '@fedify/vocab-runtime';
import type { Deps } from '../core/deps.js';
import { syncRemoteFeaturedTags, syncRemotePins } from '../core/federation/pins.js';
import { federatesWith } from '../core/federation/instance-domains.js';
import { findRemoteAccount } from '../core/federation/remote-accounts.js';
import { createRemoteStatus } from '../core/federation/remote-statuses.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { kvGet, kvSet } from '../db/repos/federation.js';
import { now } from '../util/clock.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';
import { storeEmojiTags } from './emoji-tags.js';
import { fromApNote } from './from-ap.js';
import { localAccountOf, type Ctx } from './inbox.js';
import { onUpdate } from './inbox-content.js';
import { DOCUMENT_TTL_MS } from './loader.js';

/**
 * Featured-collection sync: when a remote account is stored or refreshed, its `featured`
 * collection (pinned statuses: embedded Notes or Questions, bare URIs, or Creates wrapping a
 * Note, as Mastodon, Misskey and GoToSocial variously publish them) and its `featuredTags`
 * collection (Hashtags) are fetched with signed GETs, in the background, and replace what was
 * known of its pins and featured tags. Errors are ignored: the account stays as it was.
 */

/** How long after a sync the same account is not synchronised again (activities refresh it often). */
export const FEATURED_SYNC_INTERVAL_MS = DOCUMENT_TTL_MS;
/** Items of a featured collection looked at, at most. */
const MAX_ITEMS = 20;
/** Documents fetched for one collection at most (bare URIs, Creates by reference, pages). */
const MAX_FETCHES = 10;

/** Syncs in flight per instance (by account id), so one account is never fetched twice at once. */
const inFlight = new WeakMap<Deps, Map<string, Promise<void>>>();

function flights(deps: Deps): Map<string, Promise<void>> {
  let m = inFlight.get(deps);
  if (!m) {
    m = new Map();
    inFlight.set(deps, m);
  }
  return m;
}

function markerKey(accountId: string): string {
  return JSON.stringify(['hearth', 'featuredSync', accountId]);
}

/**
 * Starts the featured sync of a remote account in the background (never awaited by the caller).
 * Without `force`, an account synchronised less than FEATURED_SYNC_INTERVAL_MS ago is skipped:
 * every inbound activity refreshes its sender, and that must not cost two fetches each time.
 * `force` (the account's own Update) still never runs two syncs of one account at once.
 */
export function syncFeaturedLater(ctx: Context<Deps>, account: AccountRow, options: { force?: boolean } = {}): void {
  const deps = ctx.data;
  if (account.domain === null || (!account.featured_url && !account.featured_tags_url)) return;
  const running = flights(deps);
  if (running.has(account.id)) return;
  const at = now();
  if (!options.force && kvGet(deps.db, markerKey(account.id), at)) return;
  kvSet(deps.db, markerKey(account.id), '1', at + FEATURED_SYNC_INTERVAL_MS);
  const job = syncFeatured(ctx, account)
    .catch(() => {
      // A collection that cannot be fetched or read changes nothing (the account keeps its pins).
    })
    .finally(() => running.delete(account.id));
  running.set(account.id, job);
}

/** Waits (a few seconds at most) for the syncs in flight, before the database closes. */
export async function featuredSyncsSettled(deps: Deps, timeoutMs = 3_000): Promise<void> {
  const jobs = [...flights(deps).values()];
  if (jobs.length === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  await Promise.race([Promise.all(jobs), timeout]);
  clearTimeout(timer);
}

/** Update listener: `onUpdate`, then a fresh featured sync when an actor updated itself. */
export async function onUpdateWithFeatured(ctx: Ctx, update: Update): Promise<void> {
  await onUpdate(ctx, update);
  // A profile change may come with changed featured collections (and Hearth before Add/Remove of
  // Hashtags announced featured-tag changes this way): the account is synchronised again.
  if (!update.actorId || update.objectId?.href !== update.actorId.href) return;
  const account = findRemoteAccount(ctx.data, update.actorId.href);
  if (account) syncFeaturedLater(ctx, account, { force: true });
}

/**
 * A signed loader that records what it fetched and refuses more than `budget` documents, and any
 * document but the collection itself that is not on the account's own server (only that server
 * speaks for its statuses, and nothing is fetched from a host we do not federate with).
 */
function budgetLoader(deps: Deps, signed: DocumentLoader, budget: number, account: AccountRow, collectionUrl: string): { loader: DocumentLoader; docs: Map<string, unknown> } {
  const docs = new Map<string, unknown>();
  const origin = account.uri ? new URL(account.uri).origin : null;
  let left = budget;
  const loader: DocumentLoader = async (url, options) => {
    const target = new URL(url);
    if (url !== collectionUrl && target.origin !== origin) throw new Error('featured sync: not on the account\'s server');
    if (!federatesWith(deps, target.host)) throw new Error('featured sync: host not federated with');
    if (left <= 0) throw new Error('featured sync: fetch budget spent');
    left--;
    const doc: RemoteDocument = await signed(url, options);
    docs.set(url, doc.document);
    return doc;
  };
  return { loader, docs };
}

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** The JSON of an embedded item with this id in any of the documents fetched (collection, pages). */
function rawItem(docs: Iterable<unknown>, id: string): Record<string, unknown> | null {
  for (const doc of docs) {
    const d = record(doc);
    if (!d) continue;
    if (d.id === id) return d;
    for (const key of ['orderedItems', 'items']) {
      const list = d[key];
      for (const item of Array.isArray(list) ? list : [list]) {
        const r = record(item);
        if (r?.id === id) return r;
        const inner = record(r?.object);
        if (inner?.id === id) return inner;
      }
    }
  }
  return null;
}

/** Fetches a collection (signed) and yields up to MAX_ITEMS of its items, following pages. */
async function* collectionItems(ctx: Context<Deps>, url: string, loader: DocumentLoader): AsyncGenerator<unknown> {
  const doc = await loader(url);
  const object = await ApObject.fromJsonLd(doc.document, { documentLoader: loader, contextLoader: ctx.contextLoader });
  // The collection must be what the URL names (not a document served for another id).
  if (!(object instanceof Collection) || object.id?.href !== url) return;
  let n = 0;
  for await (const item of ctx.traverseCollection(object, { documentLoader: loader, contextLoader: ctx.contextLoader, suppressError: true })) {
    yield item;
    if (++n >= MAX_ITEMS) return;
  }
}

async function syncFeatured(ctx: Context<Deps>, account: AccountRow): Promise<void> {
  const signed = await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
  if (account.featured_url) await syncPins(ctx, account, account.featured_url, signed).catch(() => undefined);
  if (account.featured_tags_url) await syncTags(ctx, account, account.featured_tags_url, signed).catch(() => undefined);
}

async function syncPins(ctx: Context<Deps>, account: AccountRow, url: string, signed: DocumentLoader): Promise<void> {
  const deps = ctx.data;
  const { loader, docs } = budgetLoader(deps, signed, MAX_FETCHES, account, url);
  const options = { documentLoader: loader, contextLoader: ctx.contextLoader, suppressError: true };
  const origin = account.uri ? new URL(account.uri).origin : null;
  const statusIds: string[] = [];
  for await (const item of collectionItems(ctx, url, loader)) {
    let note: unknown = item;
    if (item instanceof Create) note = await item.getObject(options).catch(() => null);
    if (!(note instanceof Note || note instanceof Question) || !note.id) continue;
    // Only the account's own statuses, from its own server, can be its pins.
    if (note.attributionId?.href !== account.uri || note.id.origin !== origin) continue;
    const data = await fromApNote(note, account.followers_url, rawItem(docs.values(), note.id.href));
    if (!data || data.visibility === 'direct' || data.visibility === 'private' || account.domain === null) continue;
    await storeEmojiTags(deps, note, account.domain);
    const { status } = createRemoteStatus(deps, account, data, (uri) => localAccountOf(ctx, new URL(uri)));
    statusIds.push(status.id);
  }
  syncRemotePins(deps, account, statusIds);
}

async function syncTags(ctx: Context<Deps>, account: AccountRow, url: string, signed: DocumentLoader): Promise<void> {
  // Hashtags are embedded; only the collection (and its pages) is fetched.
  const { loader } = budgetLoader(ctx.data, signed, 3, account, url);
  const names: string[] = [];
  for await (const item of collectionItems(ctx, url, loader)) {
    if (item instanceof Hashtag && item.name) names.push(String(item.name));
  }
  syncRemoteFeaturedTags(ctx.data, account, names);
}
