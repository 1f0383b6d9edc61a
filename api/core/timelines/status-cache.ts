import { randomBytes } from 'node:crypto';
import type { MastodonStatus } from '../../serializers/status.js';
import { approvalDependsOnFollows, approvalFlags } from '../statuses/quote-policy.js';

/**
 * An in-memory cache of statuses already rendered as JSON, for timelines.
 *
 * What is cached is the viewer-independent part of a Status entity (as rendered for an anonymous
 * viewer), serialized once and cut into text segments around "slots" whose values change often:
 * the three counters, and, for a reblog, the reblogged status (composed from its own entry). The
 * viewer's flags (favourited, reblogged, muted, bookmarked, pinned, filtered) are never cached:
 * they are appended per request from one batched query, as are the live counters. Statuses with a
 * poll are not cached at all (own votes and expiry depend on the viewer and the clock), nor those
 * with a quote (the quoted status has the viewer's flags); who may quote a status is a slot too.
 *
 * Entries are dropped when their status changes (`status.updated`, `status.deleted`), when an
 * embedded account changes (`account.updated`, follows, new statuses move its counters), after a
 * maximum age (a bound on staleness for changes that emit no event), and least recently used first
 * when the cache is full.
 */

/** A value filled in per request (`quote_user`: the QuoteApproval's `current_user`, per viewer). */
export type Slot = 'replies' | 'reblogs' | 'favourites' | 'reblog' | 'quote_user';

/** A cached rendering of one status. */
export interface CachedStatus {
  id: string;
  /** The author (a reblog's author is the booster); entries are dropped when it changes. */
  accountId: string;
  visibility: MastodonStatus['visibility'];
  /** The reblogged status, for a reblog. */
  reblogOfId: string | null;
  /**
   * True when the status must be rendered per viewer (a poll or a quote, here or in the reblogged
   * status, or a quote policy that depends on who follows whom).
   */
  live: boolean;
  /** Its quote policy flags (from the QuoteApproval), for the viewer's `current_user`. */
  quotePolicy: { automatic: number; manual: number };
  /** JSON text segments; `parts.length === slots.length + 1`; the last lacks the closing brace. */
  parts: string[];
  slots: Slot[];
  expiresAt: number;
}

// Sentinels that cannot occur in rendered text: a per-process random nonce after a NUL.
const NONCE = randomBytes(8).toString('hex');
const SENTINEL: Record<Slot, string> = {
  replies: `\u0000${NONCE}RC`,
  reblogs: `\u0000${NONCE}RB`,
  favourites: `\u0000${NONCE}FC`,
  reblog: `\u0000${NONCE}RE`,
  quote_user: `\u0000${NONCE}QU`,
};
const BY_TOKEN = new Map<string, Slot>(Object.entries(SENTINEL).map(([slot, s]) => [JSON.stringify(s), slot as Slot]));
const TOKEN_PATTERN = new RegExp([...BY_TOKEN.keys()].map((t) => t.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&')).join('|'), 'g');

/** Cuts the JSON of a status (with sentinels in place of the slot values) into parts and slots. */
function cut(json: string): { parts: string[]; slots: Slot[] } {
  const parts: string[] = [];
  const slots: Slot[] = [];
  let last = 0;
  for (const match of json.matchAll(TOKEN_PATTERN)) {
    parts.push(json.slice(last, match.index));
    slots.push(BY_TOKEN.get(match[0]) as Slot);
    last = match.index + match[0].length;
  }
  // Drop the closing brace: the viewer's flags go before it.
  parts.push(json.slice(last, json.length - 1));
  return { parts, slots };
}

/** The viewer-dependent attributes Mastodon (and `toMastodonStatus`) append for a signed-in viewer. */
const VIEWER_KEYS = ['favourited', 'reblogged', 'muted', 'bookmarked', 'pinned', 'filtered'] as const;

/** A bounded LRU map of rendered statuses with an index by embedded account. */
export class RenderedStatusCache {
  private readonly entries = new Map<string, CachedStatus>();
  private readonly byAccount = new Map<string, Set<string>>();

  constructor(
    private readonly maxEntries: number,
    private readonly maxAgeMs: number,
  ) {}

  /** Number of cached entries. */
  get size(): number {
    return this.entries.size;
  }

  /** A fresh entry, or undefined (expired ones are dropped). */
  get(id: string, at: number): CachedStatus | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= at) {
      this.evict(id);
      return undefined;
    }
    // Re-insert so that Map order is least recently used first.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }

  /**
   * Stores a status rendered for an anonymous viewer (and, for a reblog, its reblogged status).
   * Returns the entry.
   */
  store(status: MastodonStatus, at: number): CachedStatus {
    // A quoted status carries the viewer's flags and a state that depends on them.
    let live = status.poll !== null || status.quote !== null || approvalDependsOnFollows(status.quote_approval);
    let reblogOfId: string | null = null;
    if (status.reblog) {
      const inner = this.store(status.reblog, at);
      reblogOfId = inner.id;
      live = live || inner.live;
    }
    const entry: CachedStatus = {
      id: status.id,
      accountId: status.account.id,
      visibility: status.visibility,
      reblogOfId,
      live,
      quotePolicy: { automatic: approvalFlags(status.quote_approval.automatic), manual: approvalFlags(status.quote_approval.manual) },
      parts: [],
      slots: [],
      expiresAt: at + this.maxAgeMs,
    };
    if (!live) {
      const shell: Record<string, unknown> = {
        ...status,
        replies_count: SENTINEL.replies,
        reblogs_count: SENTINEL.reblogs,
        favourites_count: SENTINEL.favourites,
        reblog: status.reblog ? SENTINEL.reblog : null,
        quote_approval: { ...status.quote_approval, current_user: SENTINEL.quote_user },
      };
      for (const key of VIEWER_KEYS) delete shell[key];
      Object.assign(entry, cut(JSON.stringify(shell)));
    }
    this.set(entry);
    return entry;
  }

  private set(entry: CachedStatus): void {
    this.evict(entry.id);
    this.entries.set(entry.id, entry);
    let ids = this.byAccount.get(entry.accountId);
    if (!ids) this.byAccount.set(entry.accountId, (ids = new Set()));
    ids.add(entry.id);
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done) break;
      this.evict(oldest.value);
    }
  }

  /** Drops one status. Reblogs of it compose it at read time, so they need no eviction. */
  evict(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    const ids = this.byAccount.get(entry.accountId);
    if (ids) {
      ids.delete(id);
      if (ids.size === 0) this.byAccount.delete(entry.accountId);
    }
  }

  /** Drops every status that embeds this account as its author. */
  evictAccount(accountId: string): void {
    const ids = this.byAccount.get(accountId);
    if (!ids) return;
    for (const id of [...ids]) this.evict(id);
  }

  /** Drops everything. */
  clear(): void {
    this.entries.clear();
    this.byAccount.clear();
  }
}
