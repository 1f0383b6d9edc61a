import { randomInt } from 'node:crypto';
import { isMainThread } from 'node:worker_threads';
import { now } from './clock.js';

/**
 * Time-sortable 64-bit identifiers, as Mastodon makes them: milliseconds since the epoch shifted
 * left 16 bits, plus a 16-bit sequence. Stored as SQLite INTEGER, handled as decimal strings in
 * TypeScript (they exceed Number's safe range) and serialized as strings everywhere.
 */
let lastMs = 0n;
let sequence = 0n;

/**
 * The half of the 16-bit sequence this thread counts in. The delivery thread writes rows to the
 * same tables as the main thread (retries it enqueues), each counting its own sequence from the
 * start of every millisecond: the main thread takes the lower half and worker threads the upper,
 * so that the two never make the same id.
 */
const SEQUENCE_BASE = isMainThread ? 0n : 0x8000n;
const SEQUENCE_MAX = 0x7fffn;

/** A new identifier for a local record created now; strictly increasing within this thread. */
export function newId(atMs: number = now()): string {
  let ms = BigInt(Math.floor(atMs));
  if (ms < lastMs) ms = lastMs; // clock stepped back: keep ids increasing
  if (ms === lastMs) {
    sequence += 1n;
    if (sequence > SEQUENCE_MAX) {
      // More than 32,768 ids in one millisecond: borrow the next millisecond.
      ms += 1n;
      sequence = 0n;
    }
  } else {
    sequence = 0n;
  }
  lastMs = ms;
  return ((ms << 16n) | (SEQUENCE_BASE + sequence)).toString();
}

/**
 * Forgets the last id this thread made, as a process starting afresh does. For a process that
 * hosts one instance after another on fresh databases: the test suite runs many files in one
 * process, and a file that moved the clock an hour ahead would otherwise leave every later id of
 * the process an hour ahead.
 */
export function forgetLastId(): void {
  lastMs = 0n;
  sequence = 0n;
}

/**
 * An identifier for a record created elsewhere at `atMs` (a remote status's published time), so
 * that ids keep sorting by creation time. The low bits are random, so it does not disturb the
 * local sequence; callers retry on the rare collision.
 */
export function idAtTime(atMs: number): string {
  return ((BigInt(Math.floor(atMs)) << 16n) | BigInt(randomInt(0, 0x10000))).toString();
}

/** The smallest id that could have been made at `atMs` (for time-bounded id ranges). */
export function minIdAtTime(atMs: number): string {
  return (BigInt(Math.floor(atMs)) << 16n).toString();
}

/** When an id was made, in milliseconds since the epoch. */
export function idTime(id: string): number {
  return Number(BigInt(id) >> 16n);
}

/** True when `value` is a decimal string that can be an identifier (so it can be bound safely). */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9]{1,19}$/.test(value) && BigInt(value) <= 0x7fffffffffffffffn;
}
