import { ApiError } from '../util/errors.js';

/**
 * Query parameters of the offset-paged listings (suggestions, account search, directory). A bad
 * value is a 422 that names the parameter in `details`, as Mastodon's validation errors do (these
 * endpoints document that shape for 422).
 */

/** A 422 about one query parameter. */
export function invalidParam(name: string, description: string): ApiError {
  const label = name.charAt(0).toUpperCase() + name.slice(1);
  return new ApiError(422, `Validation failed: ${label} ${description}`, {
    extra: { details: { [name]: [{ error: 'ERR_INVALID', description }] } },
  });
}

function integer(input: Record<string, unknown>, name: string): number | undefined {
  const raw = input[name];
  if (raw === undefined || raw === null || raw === '') return undefined;
  const text = typeof raw === 'number' ? String(raw) : typeof raw === 'string' ? raw.trim() : '';
  if (!/^-?\d{1,15}$/.test(text)) throw invalidParam(name, 'is not a number');
  return Number(text);
}

/**
 * The limit asked for, read as Mastodon's `limit_param`: absent means the default, a negative
 * limit counts as its absolute value, anything above `max` is cut to it, and 0 asks for nothing.
 */
export function limitParam(input: Record<string, unknown>, defaultLimit: number, max: number): number {
  const limit = integer(input, 'limit');
  return limit === undefined ? defaultLimit : Math.min(Math.abs(limit), max);
}

/** The offset asked for (0 when absent); a negative offset is a 422. */
export function offsetParam(input: Record<string, unknown>): number {
  const offset = integer(input, 'offset') ?? 0;
  if (offset < 0) throw invalidParam('offset', 'must be greater than or equal to 0');
  return offset;
}
