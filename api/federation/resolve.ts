import type { Federation } from '@fedify/fedify';
import { Note, Question, isActor } from '@fedify/vocab';
import type { Deps } from '../core/deps.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { HEARTH_VERSION } from '../util/version.js';
import { INSTANCE_ACTOR_IDENTIFIER } from '../util/uris.js';
import { fromApActor } from './from-ap.js';
import { findRemoteAccount, upsertRemoteAccount } from '../core/federation/remote-accounts.js';
import { createRemoteStatus } from '../core/federation/remote-statuses.js';
import { findLocalActor } from '../core/federation/local.js';
import { federatesWith } from '../core/federation/instance-domains.js';
import { findAccountByHandle } from '../db/repos/accounts.js';
import { findStatusByUri } from '../db/repos/statuses.js';
import { now } from '../util/clock.js';
import { fromApNote } from './from-ap.js';
import { syncFeaturedLater } from './featured-sync.js';

const HANDLE = /^@?([^@\s/]+)@([^@\s/]+)$/;

/**
 * The actor URL a handle names, by WebFinger over plain http. Fedify always asks over https; under
 * the test switch (`federationAllowLoopback` with an http:// origin) peers are http too.
 */
async function webfingerOverHttp(deps: Deps, user: string, host: string): Promise<string | null> {
  const url = `http://${host}/.well-known/webfinger?resource=${encodeURIComponent(`acct:${user}@${host}`)}`;
  const res = await fetch(url, { headers: { accept: 'application/jrd+json', 'user-agent': `Hearth/${HEARTH_VERSION} (+${deps.uris.base})` }, redirect: 'follow' });
  if (!res.ok) return null;
  const body = (await res.json()) as { links?: { rel?: string; type?: string; href?: string }[] };
  const self = body.links?.find((l) => l.rel === 'self' && (l.type === 'application/activity+json' || (l.type ?? '').startsWith('application/ld+json')));
  return self?.href ?? null;
}

/**
 * Looks up a remote actor by handle (`user@host`, WebFinger) or actor URL, with a GET signed by
 * the instance actor, and stores it as a remote account. Null when it cannot be found.
 */
export async function resolveRemoteAccount(federation: Federation<Deps>, deps: Deps, handleOrUri: string): Promise<AccountRow | null> {
  const ctx = federation.createContext(new URL(deps.uris.base), deps);
  const documentLoader = await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
  let target = handleOrUri.trim();
  const handle = HANDLE.exec(target);
  const host = handle?.[2] ?? (URL.canParse(target) ? new URL(target).host : null);
  if (!host || !federatesWith(deps, host)) return null;
  if (handle?.[1] && handle[2] && deps.config.federationAllowLoopback && deps.uris.base.startsWith('http://')) {
    const href = await webfingerOverHttp(deps, handle[1], handle[2]).catch(() => null);
    if (!href) return null;
    target = href;
  }
  const object = await ctx.lookupObject(target, { documentLoader }).catch((err: unknown) => {
    console.error(`federation: cannot resolve ${handleOrUri}`, err);
    return null;
  });
  if (!object || !isActor(object) || !object.id || !federatesWith(deps, object.id.host)) return null;
  const data = await fromApActor(object, (await documentLoader(object.id?.href ?? target).catch(() => null))?.document ?? null);
  if (!data) return null;
  const row = upsertRemoteAccount(deps, data);
  syncFeaturedLater(ctx, row);
  return row;
}

/** A remote account fetched longer ago than this is fetched again when searched for. */
export const ACCOUNT_STALE_MS = 24 * 60 * 60 * 1000;

/**
 * Search `resolve`: stores what a handle or URL names on another server. Accounts known and fresh
 * are left alone, stale ones are refreshed; a status URL stores the status and its author.
 */
export async function resolveRemote(federation: Federation<Deps>, deps: Deps, query: string): Promise<void> {
  const handle = HANDLE.exec(query);
  const fresh = (a: AccountRow | undefined) => a !== undefined && a.last_fetched_at !== null && now() - a.last_fetched_at < ACCOUNT_STALE_MS;
  if (handle?.[1] && handle[2]) {
    if (fresh(findAccountByHandle(deps.db, handle[1], handle[2].toLowerCase()))) return;
    await resolveRemoteAccount(federation, deps, query);
    return;
  }
  if (findStatusByUri(deps.db, query) || fresh(findRemoteAccount(deps, query))) return;
  if (!URL.canParse(query) || !federatesWith(deps, new URL(query).host)) return;
  const ctx = federation.createContext(new URL(deps.uris.base), deps);
  const documentLoader = await ctx.getDocumentLoader({ identifier: INSTANCE_ACTOR_IDENTIFIER });
  const doc = await documentLoader(query).catch(() => null);
  if (!doc) return;
  const object = await ctx.lookupObject(query, { documentLoader: () => Promise.resolve(doc) }).catch(() => null);
  if (object && isActor(object)) {
    const data = await fromApActor(object, doc.document);
    if (data) syncFeaturedLater(ctx, upsertRemoteAccount(deps, data));
    return;
  }
  if (!(object instanceof Note || object instanceof Question) || !object.attributionId) return;
  const author = await resolveRemoteAccount(federation, deps, object.attributionId.href);
  // Only the author's own server may speak for the status.
  if (!author?.uri || new URL(author.uri).origin !== new URL(query).origin) return;
  const data = await fromApNote(object, author.followers_url, doc.document);
  if (!data || data.visibility === 'direct' || data.visibility === 'private') return;
  createRemoteStatus(deps, author, data, (uri) => {
    const parsed = ctx.parseUri(new URL(uri));
    return parsed?.type === 'actor' ? findLocalActor(deps, parsed.identifier) : undefined;
  });
}
