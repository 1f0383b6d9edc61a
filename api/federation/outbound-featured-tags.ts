import type { Federation } from '@fedify/fedify';
import { Add, PUBLIC_COLLECTION, Remove } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import { accountById } from '../core/federation/local.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { now } from '../util/clock.js';
import { loadFollowerRecipients, send } from './outbound.js';
import { actorUri } from './to-ap.js';

/**
 * Delivery of featured-tag changes the way Mastodon sends them: when a local account features a
 * hashtag, its followers get `Add` of `{type: Hashtag, href: <the account's statuses with the
 * tag>, name: '#tag'}` with the account's `featured` collection as target (Mastodon's
 * AddSerializer targets `featured`, not `featuredTags`, and its inbox only accepts that target);
 * `Remove` when it stops. No Update(actor) is sent: the actor document does not change, and
 * Mastodon sends none either.
 */

/** A Hashtag as Mastodon writes it in Add/Remove (and in the featuredTags collection). */
interface HashtagJson {
  type: 'Hashtag';
  href: string;
  name: string;
}

const AS = 'https://www.w3.org/ns/activitystreams#';

/** The Hashtag each activity carries; copied to its clones (Fedify clones while sending). */
const hashtags = new WeakMap<object, HashtagJson>();

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/**
 * Puts the Hashtag in an activity's JSON-LD as `object`. Compact form gets Mastodon's
 * `Hashtag: as:Hashtag` context term; expanded form the full IRIs.
 */
function withObject(json: unknown, tag: HashtagJson | undefined): unknown {
  if (!tag) return json;
  const expanded = Array.isArray(json) ? record(json[0]) : null;
  if (expanded) {
    expanded[`${AS}object`] = [{ '@type': [`${AS}Hashtag`], [`${AS}href`]: [{ '@id': tag.href }], [`${AS}name`]: [{ '@value': tag.name }] }];
    return json;
  }
  const compact = record(json);
  if (!compact) return json;
  const context = compact['@context'];
  const list = Array.isArray(context) ? [...(context as unknown[])] : context === undefined ? [] : [context];
  return { ...compact, '@context': [...list, { Hashtag: 'as:Hashtag' }], object: { ...tag } };
}

type JsonLdOptions = Parameters<Add['toJsonLd']>[0];

/*
 * Fedify's Add and Remove take only Objects as `object`, and a Hashtag is a Link. These
 * subclasses serialize with the Hashtag in place, so what Fedify signs (Object Integrity Proof,
 * Linked Data signature) and queues is the activity as sent. Fedify clones an activity while
 * sending it (`new this.constructor`), so the class survives and the Hashtag is carried over.
 */

/** A clone of an activity carrying the same Hashtag as the original. */
function withSameTag<T extends object>(original: object, copy: T): T {
  const tag = hashtags.get(original);
  if (tag) hashtags.set(copy, tag);
  return copy;
}

/** Add of a Hashtag (see above). */
class HashtagAdd extends Add {
  override clone(...args: Parameters<Add['clone']>): Add {
    return withSameTag(this, super.clone(...args));
  }

  override async toJsonLd(options?: JsonLdOptions): Promise<unknown> {
    return withObject(await super.toJsonLd(options), hashtags.get(this));
  }
}

/** Remove of a Hashtag (see above). */
class HashtagRemove extends Remove {
  override clone(...args: Parameters<Remove['clone']>): Remove {
    return withSameTag(this, super.clone(...args));
  }

  override async toJsonLd(options?: JsonLdOptions): Promise<unknown> {
    return withObject(await super.toJsonLd(options), hashtags.get(this));
  }
}

/**
 * The Add (or Remove) of `name` on a local account's featured collection, as Mastodon writes it.
 * Exported for tests.
 */
export function featuredTagActivity(deps: Deps, account: AccountRow, name: string, added: boolean, at = now()): Add | Remove {
  const { username } = account;
  const actor = new URL(actorUri(account, deps.uris));
  const values = {
    id: new URL(`${actor.href}#featured_tags/${added ? 'add' : 'remove'}/${encodeURIComponent(name.toLowerCase())}/${at}`),
    actor,
    target: new URL(deps.uris.featuredUri(username)),
    to: PUBLIC_COLLECTION,
  };
  const activity = added ? new HashtagAdd(values) : new HashtagRemove(values);
  hashtags.set(activity, { type: 'Hashtag', href: deps.uris.accountTagUrl(username, null, name), name: `#${name}` });
  return activity;
}

/**
 * Subscribes delivery of featured-tag changes ('featured_tag.created' / 'featured_tag.deleted')
 * to the local account's remote followers (one delivery per shared inbox). Returns the
 * unsubscribe function.
 */
export function installFeaturedTagOutbound(deps: Deps, federation: Federation<Deps>): () => void {
  const offs = (['featured_tag.created', 'featured_tag.deleted'] as const).map((event) =>
    deps.events.on(event, ({ accountId, name }) => {
      const me = accountById(deps, accountId);
      if (!me || me.domain !== null) return;
      const activity = featuredTagActivity(deps, me, name, event === 'featured_tag.created');
      const ctx = federation.createContext(new URL(deps.uris.base), deps);
      // Followers are read a page at a time (see loadFollowerRecipients); none, nothing is sent.
      loadFollowerRecipients(deps, me.id)
        .then((recipients) => send(ctx, me, recipients, activity))
        .catch((err: unknown) => console.error(`federation: sending ${activity instanceof Add ? 'Add' : 'Remove'}(Hashtag) failed`, err));
    }),
  );
  return () => offs.forEach((off) => off());
}
