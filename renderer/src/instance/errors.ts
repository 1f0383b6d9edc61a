import { ApiFailure } from './client';

/**
 * Turns a failure into a sentence a person understands: the instance's own error message when it
 * gave one (Mastodon's `{"error": "…"}`), otherwise what went wrong in plain words.
 */
export function describeError(error: unknown): string {
  if (!navigator.onLine) return 'You are offline. Hearth will try again when the connection is back.';
  const status = statusOf(error);
  const message = error instanceof Error ? error.message : '';
  if (status === 401) return 'Your session has ended. Please sign in again.';
  if (status === 403) return message || 'You are not allowed to do this.';
  if (status === 404) return 'This could not be found. It may have been deleted.';
  if (status === 429) return 'Too many requests. Please wait a moment and try again.';
  if (status !== null && status >= 500) return 'The instance ran into a problem. Please try again.';
  if (error instanceof TypeError || /fetch|network/i.test(message)) return 'The instance cannot be reached. Is Hearth still running?';
  return message || 'Something went wrong. Please try again.';
}

/** The HTTP status of a failed request (masto's errors and ours), or null. */
export function statusOf(error: unknown): number | null {
  if (error instanceof ApiFailure) return error.status;
  if (error && typeof error === 'object' && 'statusCode' in error && typeof error.statusCode === 'number') return error.statusCode;
  return null;
}
