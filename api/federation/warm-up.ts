import type { Federation } from '@fedify/fedify';
import { Temporal } from '@js-temporal/polyfill';
import { Create, Note, PUBLIC_COLLECTION } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';

/**
 * Serializes and parses one throw-away activity shortly after start, so that the first real post
 * does not pay for processing the JSON-LD contexts (kept afterwards, see keepContextsStatic) and
 * compiling the vocabulary code: tens of milliseconds that otherwise stall the event loop just as
 * the user posts. Nothing is stored or sent; a failure only means the first post pays it.
 */
export async function warmUpJsonLd(federation: Federation<Deps>, deps: Deps, origin: string): Promise<void> {
  try {
    const ctx = federation.createContext(new URL(origin), deps);
    const actor = new URL('/users/warm-up', origin);
    const note = new Note({ id: new URL('/warm-up/1', origin), attribution: actor, to: PUBLIC_COLLECTION, content: '<p>warm-up</p>', published: Temporal.Now.instant() });
    const create = new Create({ id: new URL('/warm-up/1/activity', origin), actor, to: PUBLIC_COLLECTION, object: note });
    const json = await create.toJsonLd({ format: 'compact', contextLoader: ctx.contextLoader });
    await Create.fromJsonLd(json, { contextLoader: ctx.contextLoader, documentLoader: ctx.contextLoader });
  } catch {
    // Nothing depends on it.
  }
}
