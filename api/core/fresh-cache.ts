import type { Db } from '../db/connection.js';
import { changeStamp, type ChangeStamp } from '../db/repos/changes.js';
import { now } from '../util/clock.js';
import type { Deps } from './deps.js';

// Every value a FreshCache holds (deep-frozen): what serializes it may keep the serialization.
const cachedValues = new WeakSet<object>();

/** Whether a value comes from a FreshCache: deep-frozen, so it serializes the same every time. */
export function isFrozenCacheValue(value: unknown): boolean {
  return typeof value === 'object' && value !== null && cachedValues.has(value);
}

interface Generation<V> {
  stamp: ChangeStamp;
  base: string;
  entries: Map<string, { value: V; at: number }>;
}

/**
 * A cache of values derived from the database, per instance: an entry holds while nothing at all
 * has been written to the database (by this process or another, see ChangeStamp), the public base
 * URL is the same, and for `ttlMs` at most (for what depends on the time). Values are deep-frozen:
 * every caller gets the same object, which nobody may change.
 */
export class FreshCache<V> {
  private readonly generations = new WeakMap<Db, Generation<V>>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 1000,
  ) {}

  /** The cached value for `key`, or what `load` returns (cached from now on). */
  get(deps: Deps, key: string, load: () => V): V {
    // Stamped before loading: a write made while loading makes the next call load again.
    const stamp = changeStamp(deps.db);
    const base = deps.uris.base;
    const at = now();
    let gen = this.generations.get(deps.db);
    if (!gen || gen.stamp !== stamp || gen.base !== base) {
      gen = { stamp, base, entries: new Map() };
      this.generations.set(deps.db, gen);
    }
    const hit = gen.entries.get(key);
    if (hit && at >= hit.at && at - hit.at < this.ttlMs) return hit.value;
    const value = deepFreeze(load());
    if (typeof value === 'object' && value !== null) cachedValues.add(value);
    if (gen.entries.size >= this.maxEntries) gen.entries.clear();
    gen.entries.set(key, { value, at });
    return value;
  }
}

/** Freezes a tree of plain data (objects and arrays) in place; returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
