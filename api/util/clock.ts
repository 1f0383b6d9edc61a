/**
 * The one source of "now" for the server. Tests that replay captured federation requests set it to
 * the capture time; everything else reads the real clock.
 */
let offsetMs = 0;
const listeners = new Set<(offsetMs: number) => void>();

/** Milliseconds since the epoch, as the server sees them. */
export function now(): number {
  return Date.now() + offsetMs;
}

/** Shifts the server's clock so that `now()` returns `atMs` at this moment (tests only). */
export function setClockTo(atMs: number): void {
  setClockOffset(atMs - Date.now());
}

/** Restores the real clock. */
export function resetClock(): void {
  setClockOffset(0);
}

/** How far the server's clock is from the real one, in milliseconds (0 outside tests). */
export function clockOffsetMs(): number {
  return offsetMs;
}

/** Sets the offset from the real clock (a thread following another thread's clock). */
export function setClockOffset(ms: number): void {
  offsetMs = ms;
  for (const listener of listeners) listener(ms);
}

/**
 * Calls `listener` with the new offset whenever the clock is set, so that a worker thread keeps
 * the same time as the thread whose clock a test moved. Returns the unsubscribe function.
 */
export function onClockChange(listener: (offsetMs: number) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** An ISO 8601 UTC timestamp with milliseconds, as Mastodon's API writes them. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** An ISO 8601 calendar date (YYYY-MM-DD) in UTC, as `last_status_at` is written. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
