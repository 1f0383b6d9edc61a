/**
 * The one source of "now" for the server. Tests that replay captured federation requests set it to
 * the capture time; everything else reads the real clock.
 */
let offsetMs = 0;

/** Milliseconds since the epoch, as the server sees them. */
export function now(): number {
  return Date.now() + offsetMs;
}

/** Shifts the server's clock so that `now()` returns `atMs` at this moment (tests only). */
export function setClockTo(atMs: number): void {
  offsetMs = atMs - Date.now();
}

/** Restores the real clock. */
export function resetClock(): void {
  offsetMs = 0;
}

/** An ISO 8601 UTC timestamp with milliseconds, as Mastodon's API writes them. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** An ISO 8601 calendar date (YYYY-MM-DD) in UTC, as `last_status_at` is written. */
export function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
