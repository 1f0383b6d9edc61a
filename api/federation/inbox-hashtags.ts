import { verifyRequest, type Context, type Federation } from '@fedify/fedify';
import type { Deps } from '../core/deps.js';
import { isDeletedActor } from '../core/federation/delete-actor.js';
import { federatesWith } from '../core/federation/instance-domains.js';
import { changeRemoteFeaturedTag } from '../core/federation/pins.js';
import { findRemoteAccount } from '../core/federation/remote-accounts.js';
import { cleanTagName, isValidTagName } from '../core/tags/tags.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { syncFeaturedLater } from './featured-sync.js';
import { cachedSignedLoader } from './loader.js';

/**
 * Inbound Add/Remove of a Hashtag: how Mastodon tells followers that an account features a
 * hashtag or stops featuring it (`object: {type: Hashtag, href, name: '#tag'}`, target the
 * account's `featured` collection; other servers may name the `featuredTags` collection).
 *
 * Fedify's vocabulary takes only Objects as an activity's `object`, and a Hashtag is a Link: it
 * refuses the whole activity as invalid (400) before any listener runs. So these activities are
 * recognised in front of Fedify: their HTTP signature is verified with Fedify's own
 * `verifyRequest` (Digest included; freshness and domain blocks were checked by the middleware),
 * the key must belong to the activity's actor, and the change is applied to that actor's featured
 * tags. Everything else goes to Fedify untouched.
 */

/** A featured-tag change as an Add/Remove of a Hashtag names it. */
export interface HashtagChange {
  added: boolean;
  actor: string;
  target: string;
  /** The tag's name without '#', or null when the Hashtag names none that can be read. */
  name: string | null;
}

/** Inbox paths: the shared inbox and personal ones (see registerInbox). */
const INBOX_PATH = /^\/(?:users\/[^/]+\/)?inbox\/?$/;

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A JSON-LD reference as a URL string: a string, or an object's `id`. */
function idOf(value: unknown): string | null {
  const v = typeof value === 'string' ? value : record(value)?.id;
  return typeof v === 'string' && URL.canParse(v) ? v : null;
}

/** The tag a Hashtag names: its `name`, else the last segment of its `href` (`/tags/x`, `/@u/tagged/x`). */
function nameOf(hashtag: Record<string, unknown>): string | null {
  if (typeof hashtag.name === 'string' && hashtag.name.trim() !== '') return cleanTagName(hashtag.name);
  const href = idOf(hashtag.href);
  if (!href) return null;
  const last = new URL(href).pathname.split('/').filter(Boolean).pop();
  try {
    return last ? cleanTagName(decodeURIComponent(last)) : null;
  } catch {
    return null;
  }
}

/** The change an activity's JSON describes, when it is an Add or Remove of a Hashtag (else null). */
export function hashtagChangeOf(json: unknown): HashtagChange | null {
  const activity = record(json);
  if (!activity || (activity.type !== 'Add' && activity.type !== 'Remove')) return null;
  const object = record(activity.object);
  const types = Array.isArray(object?.type) ? (object.type as unknown[]) : [object?.type];
  if (!object || !types.includes('Hashtag')) return null;
  const actor = idOf(activity.actor);
  const target = idOf(activity.target);
  if (!actor || !target) return null;
  return { added: activity.type === 'Add', actor, target, name: nameOf(object) };
}

/**
 * Applies a featured-tag change from `sender` (already authenticated as its actor) when its target
 * is one of the sender's own featured collections: the one tag is added or removed, or, when the
 * Hashtag names no valid tag, the sender's featured collections are synchronised again.
 */
export function receiveHashtagChange(ctx: Context<Deps>, sender: AccountRow, change: HashtagChange): void {
  if (change.actor !== sender.uri) return;
  // Mastodon targets `featured` (its inbox accepts only that); `featuredTags` is the natural one.
  if (change.target !== sender.featured_url && change.target !== sender.featured_tags_url) return;
  if (change.name !== null && isValidTagName(change.name)) changeRemoteFeaturedTag(ctx.data, sender, change.name, change.added);
  else syncFeaturedLater(ctx, sender, { force: true });
}

/** Answers an Add/Remove of a Hashtag POSTed to an inbox; null for any other request. */
async function hashtagActivity(federation: Federation<Deps>, request: Request, deps: Deps): Promise<Response | null> {
  if (request.method !== 'POST' || !INBOX_PATH.test(new URL(request.url).pathname)) return null;
  const body = Buffer.from(await request.clone().arrayBuffer());
  // A cheap test first: only bodies naming a Hashtag at all are parsed here.
  if (!body.includes('"Hashtag"')) return null;
  let json: unknown;
  try {
    json = JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
  const change = hashtagChangeOf(json);
  if (!change) return null;
  const ctx = federation.createContext(request, deps);
  const key = await verifyRequest(request, {
    documentLoader: await cachedSignedLoader(ctx),
    contextLoader: ctx.contextLoader,
    timeWindow: false,
    spec: request.headers.has('signature-input') ? 'rfc9421' : 'draft-cavage-http-signatures-12',
  }).catch(() => null);
  if (!key || key.ownerId?.href !== change.actor) {
    return new Response('Failed to verify the request signature.', { status: 401, headers: { 'content-type': 'text/plain; charset=utf-8' } });
  }
  // Only an account known here has featured tags to change (followed accounts are known).
  const sender = federatesWith(deps, new URL(change.actor).host) && !isDeletedActor(deps, change.actor) ? findRemoteAccount(deps, change.actor) : undefined;
  if (sender) receiveHashtagChange(ctx, sender, change);
  return new Response(null, { status: 202 });
}

/**
 * The federation as the HTTP middleware uses it: its `fetch` answers Add/Remove of a Hashtag
 * itself (see above) and hands every other request to Fedify.
 */
export function withHashtagActivities(federation: Federation<Deps>): Federation<Deps> {
  const fetch: Federation<Deps>['fetch'] = async (request, options) => (await hashtagActivity(federation, request, options.contextData)) ?? federation.fetch(request, options);
  return new Proxy(federation, {
    get(target, property) {
      if (property === 'fetch') return fetch;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
