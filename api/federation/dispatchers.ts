import { Create, Multikey, Note, Object as ApObject, Question, Tombstone, type Recipient } from '@fedify/vocab';
import type { Federation } from '@fedify/fedify';
import {
  accountById,
  featuredStatuses,
  findLocalActor,
  findLocalActorState,
  followCollectionPage,
  instanceActorKeys,
  loadNoteContext,
  outboxPage,
  statusById,
} from '../core/federation/local.js';
import type { Deps } from '../core/deps.js';
import { Application } from '@fedify/vocab';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';
import { importKeyPair } from './keys.js';
import type { webcrypto } from 'node:crypto';
import { now } from '../util/clock.js';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
import { toApActor, toApStatusObject } from './to-ap.js';

const PAGE = 40;

/** A Note wrapped in its Create activity (`<note>/activity`), addressed like the note. */
export function createOf(note: Note | Question): Create {
  return new Create({
    id: new URL(`${note.id?.href ?? ''}/activity`),
    actor: note.attributionId,
    object: note,
    tos: note.toIds,
    ccs: note.ccIds,
    published: note.published,
  });
}

/** Imported key pairs, cached per PEM (importing RSA keys on every request is slow). */
const keyCache = new Map<string, Promise<CryptoKeyPair>>();

function keyPairOf(publicPem: string, privatePem: string): Promise<CryptoKeyPair> {
  let p = keyCache.get(publicPem);
  if (!p) {
    p = importKeyPair(publicPem, privatePem);
    keyCache.set(publicPem, p);
  }
  return p;
}

/** The signing keys of a local actor (or the instance actor), for Fedify. */
export async function actorKeyPairs(deps: Deps, identifier: string): Promise<CryptoKeyPair[]> {
  if (identifier === INSTANCE_ACTOR_IDENTIFIER) {
    const keys = instanceActorKeys(deps);
    return [await keyPairOf(keys.publicKeyPem, keys.privateKeyPem)];
  }
  // Suspended accounts (and those whose data was deleted) still sign: their Update and Delete go
  // out signed, and peers verify them with the key they know.
  const account = findLocalActorState(deps, identifier)?.account;
  if (!account?.public_key_pem || !account.private_key_pem) return [];
  return [await keyPairOf(account.public_key_pem, account.private_key_pem)];
}

/** Whether a served document is a collection page without its (empty) list of items. */
function pageWithoutItems(doc: unknown): doc is Record<string, unknown> {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return false;
  const page = doc as Record<string, unknown>;
  return page.type === 'OrderedCollectionPage' && !('orderedItems' in page);
}

/**
 * Serves an empty collection page with `orderedItems: []`, as Mastodon serves one: Fedify's
 * JSON-LD compaction leaves an empty list out, and peers that read outboxes (and followers
 * pages) take a page without `orderedItems` for a broken one. Fedify has no option for it, so
 * the federation's `fetch` is wrapped: a GET of a page (a `cursor` in the query) whose JSON lacks
 * the list gets it added; every other answer is passed on untouched. Should a later Fedify rename
 * `fetch`, pages are served as Fedify makes them (the outbox test fails). Returns whether the
 * wrapping took place.
 */
export function listItemsOfEmptyPages(federation: Federation<Deps>): boolean {
  const impl = federation as unknown as { fetch?: Federation<Deps>['fetch'] };
  const fetch = impl.fetch;
  if (typeof fetch !== 'function') return false;
  const wrapped: Federation<Deps>['fetch'] = async (request, options) => {
    const response = await fetch.call(federation, request, options);
    if (request.method !== 'GET' || response.status !== 200 || !new URL(request.url).searchParams.has('cursor')) return response;
    if (!(response.headers.get('content-type') ?? '').includes('json')) return response;
    const text = await response.clone().text();
    // A page with items names them; only the rare empty page is parsed.
    if (text.includes('"orderedItems"')) return response;
    const doc = JSON.parse(text) as unknown;
    if (!pageWithoutItems(doc)) return response;
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify({ ...doc, orderedItems: [] }), { status: response.status, statusText: response.statusText, headers });
  };
  impl.fetch = wrapped;
  return true;
}

/**
 * Registers what Fedify serves: actors (and the instance actor) with their keys and WebFinger
 * handles, followers/following (totals always, items unless hidden), outbox of public statuses,
 * featured (pins), and public statuses (Notes, Questions for polls). Empty pages list their
 * (no) items (see listItemsOfEmptyPages).
 */
export function registerDispatchers(federation: Federation<Deps>): void {
  listItemsOfEmptyPages(federation);
  federation
    .setActorDispatcher('/users/{identifier}', async (ctx, identifier) => {
      const deps = ctx.data;
      const keys = await ctx.getActorKeyPairs(identifier);
      if (identifier === INSTANCE_ACTOR_IDENTIFIER) {
        return new Application({
          id: ctx.getActorUri(identifier),
          preferredUsername: deps.uris.domain,
          name: deps.uris.domain,
          inbox: ctx.getInboxUri(identifier),
          outbox: ctx.getOutboxUri(identifier),
          publicKey: keys[0]?.cryptographicKey ?? null,
          assertionMethods: keys.map((k) => k.multikey),
          manuallyApprovesFollowers: true,
        });
      }
      const found = findLocalActorState(deps, identifier);
      if (!found) return null;
      const account = found.account;
      // Its data deleted by staff: 410 Gone, as Mastodon answers for an account that is no more.
      if (found.state === 'gone') return new Tombstone({ id: ctx.getActorUri(identifier) });
      const moved = account.moved_to_account_id ? accountById(deps, account.moved_to_account_id) : undefined;
      const movedTo = moved ? (moved.uri ?? deps.uris.accountUri(moved.username)) : null;
      const avatar = account.avatar_file ? deps.uris.fileUrl(account.avatar_file) : null;
      const header = account.header_file ? deps.uris.fileUrl(account.header_file) : null;
      const actor = toApActor(account, deps.uris, keys.map((k) => ({ cryptographicKey: k.cryptographicKey, multikey: k.multikey as Multikey })), avatar, header, movedTo);
      if (found.state === 'active') return actor;
      // Suspended: served emptied with `suspended: true`, as Mastodon's actor serializer does (the
      // name becomes the username; no bio, pictures, fields, emojis or discoverability).
      // (Fedify's clone keeps a property given null: empty values replace them.)
      return actor.clone({ name: account.username, summary: '', icons: [], images: [], attachments: [], tags: [], discoverable: false, indexable: false, suspended: true });
    })
    .setKeyPairsDispatcher((ctx, identifier) => actorKeyPairs(ctx.data, identifier))
    .mapHandle((ctx, username) => {
      if (username.toLowerCase() === ctx.data.uris.domain.toLowerCase()) return INSTANCE_ACTOR_IDENTIFIER;
      // A suspended account is still found (its actor says `suspended`); one whose data is gone is not.
      const found = findLocalActorState(ctx.data, username);
      return found && found.state !== 'gone' ? found.account.username : null;
    });

  const collection = (direction: 'followers' | 'following') =>
    async (ctx: { data: Deps }, identifier: string, cursor: string | null) => {
      const account = findLocalActor(ctx.data, identifier);
      if (!account || cursor === null) return null;
      // Hidden collections publish their totals only (the setting itself is not federated).
      if (account.hide_collections === 1) return { items: [] as URL[] };
      const page = followCollectionPage(ctx.data, account.id, direction, cursor === '' ? null : cursor, PAGE);
      return { items: page.uris.map((u) => new URL(u)), nextCursor: page.next };
    };
  const counter = (direction: 'followers' | 'following') => (ctx: { data: Deps }, identifier: string) => {
    const account = findLocalActor(ctx.data, identifier);
    if (!account) return null;
    return direction === 'followers' ? account.followers_count : account.following_count;
  };
  federation
    .setFollowersDispatcher('/users/{identifier}/followers', async (ctx, identifier, cursor) => {
      const page = await collection('followers')(ctx, identifier, cursor);
      // Recipients are URLs here; Fedify resolves inboxes when it needs them.
      return page ? { items: page.items.map((id) => ({ id, inboxId: null }) as Recipient), nextCursor: page.nextCursor ?? null } : null;
    })
    .setCounter(counter('followers'))
    .setFirstCursor(() => '');
  federation
    .setFollowingDispatcher('/users/{identifier}/following', collection('following'))
    .setCounter(counter('following'))
    .setFirstCursor(() => '');
  federation
    .setOutboxDispatcher('/users/{identifier}/outbox', (ctx, identifier, cursor) => {
      const account = findLocalActor(ctx.data, identifier);
      if (!account || cursor === null) return null;
      const page = outboxPage(ctx.data, account.id, cursor === '' ? null : cursor, 20);
      const context = loadNoteContext(ctx.data, page.statuses);
      const at = now();
      const items = page.statuses.map((s) => createOf(toApStatusObject(s, account, context, ctx.data.uris, at)));
      return { items, nextCursor: page.next };
    })
    .setCounter((ctx, identifier) => {
      const account = findLocalActor(ctx.data, identifier);
      return account ? outboxPage(ctx.data, account.id, null, 0).total : null;
    })
    .setFirstCursor(() => '');
  federation.setFeaturedDispatcher('/users/{identifier}/collections/featured', (ctx, identifier) => {
    const account = findLocalActor(ctx.data, identifier);
    if (!account) return null;
    const statuses = featuredStatuses(ctx.data, account.id);
    const context = loadNoteContext(ctx.data, statuses);
    const at = now();
    return { items: statuses.map((s) => toApStatusObject(s, account, context, ctx.data.uris, at)) };
  })
    // totalItems, as Mastodon publishes it.
    .setCounter((ctx, identifier) => {
      const account = findLocalActor(ctx.data, identifier);
      return account ? featuredStatuses(ctx.data, account.id).length : null;
    });
  // Registered with the base Object class: a status is served as a Note, or as a Question (with
  // its tallies and votersCount, as delivered) when it has a poll. Fedify's object handler does not
  // check the class of what the dispatcher returns; nothing builds these URIs via getObjectUri.
  federation.setObjectDispatcher(ApObject, '/users/{identifier}/statuses/{id}', (ctx, values): Note | Question | null => {
    const status = /^[0-9]+$/.test(values.id) ? statusById(ctx.data, values.id) : undefined;
    const account = findLocalActor(ctx.data, values.identifier);
    // Only public and unlisted statuses are served to anyone who asks.
    if (!status || !account || status.account_id !== account.id || status.reblog_of_id !== null) return null;
    if (status.visibility !== 'public' && status.visibility !== 'unlisted') return null;
    return toApStatusObject(status, account, loadNoteContext(ctx.data, [status]), ctx.data.uris, now());
  });
}
