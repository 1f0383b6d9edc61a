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

function describe(issue: z.core.$ZodIssue): string {
  const path = issue.path.map(String).join('.');
  return path ? `${path} ${issue.message}` : issue.message;
}

/**
 * Validates request input against a schema; a failure answers 422 with the first problem named,
 * as Mastodon's validation errors do. Unknown parameters are ignored, as Rails does.
 */
export function parse<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const first = result.error.issues[0];
    const details: Record<string, { error: string; description: string }[]> = {};
    for (const issue of result.error.issues) {
      const field = issue.path.map(String).join('.') || 'base';
      (details[field] ??= []).push({ error: issue.code === 'too_big' ? 'ERR_TOO_LONG' : issue.code === 'too_small' ? 'ERR_TOO_SHORT' : 'ERR_INVALID', description: issue.message });
    }
    throw new ApiError(422, `Validation failed: ${first ? describe(first) : 'invalid parameters'}`, { cause: result.error, extra: { details } });
  }
  return result.data;
}

/** Like `parse`, but a missing required parameter answers 400 as Rails' ParameterMissing does. */
export function required<T>(value: T | undefined | null, name: string): T {
  if (value === undefined || value === null || value === '') {
    throw new ApiError(400, `Missing required parameter: ${name}`);
  }
  return value;
}

export { z };
