import { Parser } from 'htmlparser2';
import { findCardByUrl, findStatusCardLink, linkStatusCard, unlinkStatusCard, upsertCard } from '../../db/repos/preview-cards.js';
import { findStatusById, type StatusRow } from '../../db/repos/statuses.js';
import { now } from '../../util/clock.js';
import { extractEntities } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { timelineState } from '../timelines/state.js';
import { fetchCard } from './fetch.js';

/**
 * Preview cards are made in the background after a status is posted or edited: the first link of
 * a public or unlisted status gets the card of its URL, fetched unless a recent one exists. A
 * small queue runs at most two fetches at a time; a status's answer never waits for it.
 */

/** A card younger than this is reused rather than fetched again. */
const CARD_FRESH_MS = 14 * 24 * 60 * 60 * 1000;
/** Fetches running at once. */
const CONCURRENCY = 2;

/** The links of a remote status's HTML that are neither mentions nor hashtags, in order. */
function htmlLinks(html: string): string[] {
  const links: string[] = [];
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name !== 'a' || !attrs.href) return;
        const cls = ` ${attrs.class ?? ''} `;
        if (cls.includes(' mention ') || cls.includes(' hashtag ') || (attrs.rel ?? '').split(/\s+/).includes('tag')) return;
        links.push(attrs.href);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html);
  parser.end();
  return links;
}

/**
 * Names reserved for documentation and testing (RFC 2606, RFC 6761): nothing real is behind them,
 * so they are never fetched.
 */
function isReservedHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return /(^|\.)(test|example|invalid|localhost)$/.test(host) || /(^|\.)example\.(com|net|org)$/.test(host);
}

/** The link a status's card is for: its first http(s) link (reserved names skipped), or null. */
export function firstCardLink(status: StatusRow): string | null {
  const candidates = status.local ? extractEntities(status.text).flatMap((e) => (e.kind === 'url' ? [e.url] : [])) : htmlLinks(status.content);
  for (const candidate of candidates) {
    try {
      const url = new URL(candidate);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !isReservedHost(url.hostname)) return url.toString();
    } catch {
      // Not a URL after all: look further.
    }
  }
  return null;
}

/** Makes, replaces or removes a status's card. Resolves when done; never throws for a bad page. */
export async function refreshStatusCard(deps: Deps, statusId: string): Promise<void> {
  const db = deps.db;
  const status = findStatusById(db, statusId);
  if (!status || status.reblog_of_id !== null) return;
  const link = status.visibility === 'public' || status.visibility === 'unlisted' ? firstCardLink(status) : null;
  const current = findStatusCardLink(db, statusId);
  if (!link) {
    if (current && unlinkStatusCard(db, statusId)) timelineState(deps).cache.evict(statusId);
    return;
  }
  if (current?.url === link) return;
  let card = findCardByUrl(db, link);
  if (!card || card.updated_at < now() - CARD_FRESH_MS) {
    const fetched = await fetchCard(deps, link);
    if (fetched) card = { ...fetched, id: upsertCard(db, fetched) };
  }
  const stillThere = findStatusById(db, statusId);
  if (!stillThere) return;
  if (card) linkStatusCard(db, statusId, card.id, link);
  else if (current) unlinkStatusCard(db, statusId);
  else return;
  timelineState(deps).cache.evict(statusId);
}

interface CardQueue {
  pending: string[];
  active: number;
  idle: (() => void)[];
}

const queues = new WeakMap<Deps, CardQueue>();

function queueOf(deps: Deps): CardQueue {
  let q = queues.get(deps);
  if (!q) {
    q = { pending: [], active: 0, idle: [] };
    queues.set(deps, q);
  }
  return q;
}

function pump(deps: Deps): void {
  const q = queueOf(deps);
  while (q.active < CONCURRENCY && q.pending.length > 0) {
    const statusId = q.pending.shift() as string;
    q.active++;
    refreshStatusCard(deps, statusId)
      .catch((err: unknown) => {
        // An instance closed while a page was being fetched has nothing left to write to.
        if (deps.db.raw.open) console.error(`preview card of status ${statusId} failed`, err);
      })
      .finally(() => {
        q.active--;
        pump(deps);
      });
  }
  if (q.active === 0 && q.pending.length === 0) for (const resolve of q.idle.splice(0)) resolve();
}

/** Queues a status for its card (a status already waiting is not queued twice). */
export function enqueueStatusCard(deps: Deps, statusId: string): void {
  const q = queueOf(deps);
  if (!q.pending.includes(statusId)) q.pending.push(statusId);
  setImmediate(() => pump(deps));
}

/** Resolves once no card is being fetched or waiting (tests and orderly shutdown). */
export function cardsIdle(deps: Deps): Promise<void> {
  const q = queueOf(deps);
  return new Promise((resolve) => {
    q.idle.push(resolve);
    setImmediate(() => pump(deps));
  });
}

/** Subscribes card making to new and edited statuses (called through `installMedia`). */
export function installCards(deps: Deps): void {
  deps.events.on('status.created', ({ statusId }) => enqueueStatusCard(deps, statusId));
  deps.events.on('status.updated', ({ statusId }) => enqueueStatusCard(deps, statusId));
}
