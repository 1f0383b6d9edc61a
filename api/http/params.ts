import { z } from 'zod';
import { ApiError } from '../util/errors.js';
import { isId } from '../util/ids.js';

/**
 * Schema helpers for request parameters that arrive as JSON, form or multipart bodies alike, so
 * every value may come as a string. Each helper accepts both typed JSON and its string form.
 */

// Rails' ActiveModel boolean casting, which Mastodon clients rely on: these are false, an empty
// value is "not given", and anything else is true. Presence alone (`?flag` with no value) is
// therefore never true.
const FALSE_VALUES = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False', 'off', 'OFF', 'Off', 'n', 'no', 'N', 'NO']);

/** Mastodon boolean: 'f', '0', 'false', 'off' are false; '' and absent are undefined. */
export function bool() {
  return z.preprocess((v) => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'number') return v !== 0;
    if (typeof v === 'string') return !FALSE_VALUES.has(v.trim());
    return v;
  }, z.boolean().optional());
}

/** An integer given as a number or a decimal string. */
export function int(min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER) {
  return z.preprocess((v) => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v.trim());
    return v;
  }, z.number().int().min(min).max(max).optional());
}

/** A 64-bit identifier as a decimal string (numbers from JSON are accepted and stringified). */
export function id() {
  return z.preprocess((v) => (typeof v === 'number' && Number.isSafeInteger(v) ? String(v) : v), z.string().refine(isId, 'is not a valid id'));
}

/** A string, with `null` read as absent (some clients send null for unset fields). */
export function str(max?: number) {
  const base = max === undefined ? z.string() : z.string().max(max);
  return z.preprocess((v) => (v === null ? undefined : typeof v === 'number' ? String(v) : v), base.optional());
}

/**
 * An array parameter given as `ids[]=1&ids[]=2`, `ids=1` (one value), a JSON array, or a form
 * object indexed by position (`ids[0]=1`).
 */
export function arrayOf<T extends z.ZodType>(item: T) {
  return z.preprocess((v) => {
    if (v === undefined || v === null || v === '') return undefined;
    if (Array.isArray(v)) return v;
    if (typeof v === 'object') return Object.keys(v as object).sort((a, b) => Number(a) - Number(b)).map((k) => (v as Record<string, unknown>)[k]);
    return [v];
  }, z.array(item).optional());
}

type Issue = z.core.$ZodRawIssue;

/**
 * What Rails says for a broken rule, with Mastodon's `details` code: the messages of ActiveModel's
 * validators (length, presence, numericality, inclusion), for the rules a schema states without a
 * message of its own. A message the schema gives wins (zod applies this map only without one).
 */
function railsRule(issue: Issue): { message: string; code: string } {
  const bound = (key: 'maximum' | 'minimum') => String((issue as { [k in typeof key]?: number | bigint })[key] ?? '');
  const origin = (issue as { origin?: string }).origin;
  switch (issue.code) {
    case 'too_big':
      if (origin === 'number' || origin === 'bigint') return { message: `must be less than or equal to ${bound('maximum')}`, code: 'ERR_INVALID' };
      return { message: `is too long (maximum is ${bound('maximum')} characters)`, code: 'ERR_TOO_LONG' };
    case 'too_small':
      if (origin === 'number' || origin === 'bigint') return { message: `must be greater than or equal to ${bound('minimum')}`, code: 'ERR_INVALID' };
      if (bound('minimum') === '1') return { message: "can't be blank", code: 'ERR_BLANK' };
      return { message: `is too short (minimum is ${bound('minimum')} characters)`, code: 'ERR_TOO_SHORT' };
    case 'invalid_type': {
      if (issue.input === undefined || issue.input === null) return { message: "can't be blank", code: 'ERR_BLANK' };
      const expected = (issue as { expected?: string }).expected;
      if (expected === 'int') return { message: 'must be an integer', code: 'ERR_INVALID' };
      if (expected === 'number') return { message: 'is not a number', code: 'ERR_INVALID' };
      return { message: 'is invalid', code: 'ERR_INVALID' };
    }
    case 'invalid_value':
      return { message: 'is not included in the list', code: 'ERR_INCLUSION' };
    default:
      return { message: 'is invalid', code: 'ERR_INVALID' };
  }
}

/** An attribute's name as Rails' `humanize` writes it in full messages (`display_name` → "Display name"). */
function humanize(path: readonly PropertyKey[]): string {
  const words = path
    .filter((p) => typeof p === 'string')
    .join(' ')
    .replaceAll('_', ' ')
    .trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/**
 * Validates request input against a schema; a failure answers 422 with the first problem named,
 * as Mastodon's validation errors do ("Validation failed: Title is too long (maximum is 100
 * characters), …", every broken rule, with `details` per attribute). Rules stated without a message get Rails' wording
 * and the attribute's humanized name; a schema's own message is kept with the parameter's name as
 * given. Unknown parameters are ignored, as Rails does.
 */
export function parse<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const railsCodes = new Map<string, string>();
  const result = schema.safeParse(input, {
    error: (issue) => {
      const rule = railsRule(issue);
      railsCodes.set(rule.message, rule.code);
      return rule.message;
    },
  });
  if (!result.success) {
    const details: Record<string, { error: string; description: string }[]> = {};
    const sentences: string[] = [];
    for (const issue of result.error.issues) {
      const field = issue.path.map(String).join('.') || 'base';
      const rails = railsCodes.get(issue.message);
      const code = rails ?? (issue.code === 'too_big' ? 'ERR_TOO_LONG' : issue.code === 'too_small' ? 'ERR_TOO_SHORT' : 'ERR_INVALID');
      (details[field] ??= []).push({ error: code, description: issue.message });
      const label = rails ? humanize(issue.path) : issue.path.map(String).join('.');
      sentences.push(label ? `${label} ${issue.message}` : issue.message);
    }
    // Rails' RecordInvalid names every broken rule, joined by commas.
    throw new ApiError(422, `Validation failed: ${sentences.join(', ') || 'invalid parameters'}`, { cause: result.error, extra: { details } });
  }
  return result.data;
}

/** Like `parse`, but a missing required parameter answers 400 with Rails' ParameterMissing text (Rails 8, as Mastodon 4.5 runs). */
export function required<T>(value: T | undefined | null, name: string): T {
  if (value === undefined || value === null || value === '') {
    throw new ApiError(400, `param is missing or the value is empty or invalid: ${name}`);
  }
  return value;
}

export { z };
