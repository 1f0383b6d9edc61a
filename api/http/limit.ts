import { ApiError } from '../util/errors.js';

/**
 * Page sizes (`limit`) for every listing, and the offsets of the offset-paged ones (suggestions,
 * account search, directory, trends, collections). One reading of `limit` for every route, the
 * one Mastodon's `limit_param` makes: the default when absent, else the value as Ruby's `to_i`
 * reads it, made positive and cut to the listing's maximum. Nothing about a limit is ever refused.
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

// Ruby's String#to_i: leading whitespace, a sign, then digits (single underscores between them
// allowed); whatever follows is ignored, and no digits at all is 0.
const RUBY_INTEGER = /^[\s]*([+-]?)(\d+(?:_\d+)*)/;

/** A parameter value read as Ruby's `to_i` reads it (what Rails hands Mastodon is a string). */
export function rubyToI(text: string): number {
  const m = RUBY_INTEGER.exec(text);
  if (!m) return 0;
  const n = Number((m[2] ?? '0').replaceAll('_', ''));
  return m[1] === '-' ? -n : n;
}

/**
 * The limit asked for, as Mastodon's `limit_param(default, max)`: absent (or JSON null) means the
 * default; otherwise the value is read as Ruby's `to_i` reads it (`'abc'`, `''` and `'0'` are 0,
 * `'12abc'` is 12), a negative one counts as its absolute value, and anything above `max` is cut
 * to it. 0 asks for an empty page (the lists' members listing reads `limit=0` as "all" itself).
 * A value that is not a number or a string (an array or an object, which Rails cannot convert
 * either) is a 400.
 */
export function limitParam(input: Record<string, unknown>, defaultLimit: number, max: number): number {
  const raw = input.limit;
  if (raw === undefined || raw === null) return defaultLimit;
  let n: number;
  if (typeof raw === 'number') n = Number.isFinite(raw) ? Math.trunc(raw) : max;
  else if (typeof raw === 'string') n = rubyToI(raw);
  else throw new ApiError(400, "Invalid value for 'limit': it must be a number");
  return Math.min(Math.abs(n), max);
}

/** The offset asked for (0 when absent); a negative offset is a 422. */
export function offsetParam(input: Record<string, unknown>): number {
  const offset = integer(input, 'offset') ?? 0;
  if (offset < 0) throw invalidParam('offset', 'must be greater than or equal to 0');
  return offset;
}
