import { insertPoll } from '../../db/repos/polls.js';
import { now } from '../../util/clock.js';
import { ApiError } from '../../util/errors.js';
import { Problems } from '../filters/problems.js';
import { newId } from '../../util/ids.js';
import { POLL_LIMITS } from '../instance/limits.js';
import type { Deps } from '../deps.js';

/**
 * Poll parameters of a new status, checked and normalized; also the `poll` of a scheduled
 * status's params, as Mastodon stores it (the poll ends `expires_in` seconds after publication).
 */
export interface PollParams {
  options: string[];
  expires_in: number;
  multiple: boolean;
  hide_totals: boolean;
}

// Rails' boolean casting, as Mastodon applies it to poll[multiple] and poll[hide_totals].
const FALSE_VALUES = new Set(['0', 'f', 'false', 'off', 'n', 'no']);

function toBool(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return false;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  if (typeof value === 'string') return !FALSE_VALUES.has(value.trim().toLowerCase());
  return true;
}

function toOptions(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  if (Array.isArray(value)) return value;
  // Form bodies may index the array: poll[options][0]=a&poll[options][1]=b.
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>);
    return entries.sort(([a], [b]) => Number(a) - Number(b)).map(([, v]) => v);
  }
  return [value];
}

function graphemes(text: string): number {
  let n = 0;
  for (const _ of new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(text)) n++;
  return n;
}

/**
 * Checks the `poll` parameter of POST/PUT /api/v1/statuses (JSON, form and multipart shapes alike)
 * and returns it normalized, or throws a 422 naming every broken rule as Mastodon's PollValidator
 * does ("Choices" are the options, "Deadline" the expiry): 2 to `max_options` distinct options of
 * at most `max_characters_per_option` characters, expires_in between `min_expiration` and
 * `max_expiration` seconds. Writes nothing.
 */
export function validatePollParams(input: unknown): PollParams {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw new ApiError(422, 'Validation failed: Poll is invalid', { extra: { details: { poll: [{ error: 'ERR_INVALID', description: 'is invalid' }] } } });
  }
  const raw = input as Record<string, unknown>;
  const rawOptions = toOptions(raw.options);
  // Mastodon reports these on the nested poll's attributes, whose human names are "Choices" and
  // "Deadline".
  const problems = new Problems();
  const choices = (code: string, description: string) => problems.add('poll.options', 'Choices', code, description);
  const deadline = (code: string, description: string) => problems.add('poll.expires_at', 'Deadline', code, description);
  if (rawOptions.some((o) => typeof o !== 'string' && typeof o !== 'number')) choices('ERR_INVALID', 'must be strings');
  const options = rawOptions.map((o) => String(o));
  if (options.length < 2) choices('ERR_TOO_FEW_OPTIONS', 'must have more than one item');
  if (options.length > POLL_LIMITS.max_options) choices('ERR_TOO_MANY_OPTIONS', `can't contain more than ${POLL_LIMITS.max_options} items`);
  if (options.some((o) => graphemes(o) > POLL_LIMITS.max_characters_per_option)) {
    choices('ERR_OVER_CHARACTER_LIMIT', `cannot be longer than ${POLL_LIMITS.max_characters_per_option} characters each`);
  }
  if (new Set(options).size !== options.length) choices('ERR_DUPLICATE_OPTIONS', 'contain duplicate items');
  const expiresRaw = raw.expires_in;
  let expiresIn = 0;
  if (expiresRaw === undefined || expiresRaw === null || expiresRaw === '') {
    deadline('ERR_BLANK', "can't be blank");
  } else {
    expiresIn = typeof expiresRaw === 'number' ? expiresRaw : typeof expiresRaw === 'string' && /^\s*-?\d+\s*$/.test(expiresRaw) ? Number(expiresRaw) : NaN;
    if (!Number.isSafeInteger(expiresIn)) deadline('ERR_INVALID', 'is invalid');
    else if (expiresIn > POLL_LIMITS.max_expiration) deadline('ERR_DURATION_TOO_LONG', 'is too far into the future');
    else if (expiresIn < POLL_LIMITS.min_expiration) deadline('ERR_DURATION_TOO_SHORT', 'is too soon');
  }
  problems.throwIfAny();
  return { options, expires_in: expiresIn, multiple: toBool(raw.multiple), hide_totals: toBool(raw.hide_totals) };
}

/**
 * Inserts the poll of a status being created and returns the poll's id. Synchronous and without a
 * transaction of its own: it runs inside the status creation's transaction. The poll ends
 * `expires_in` seconds from now; tallies start at zero and voters are counted from the start.
 */
export function createPollRow(deps: Deps, statusId: string, accountId: string, params: PollParams): string {
  const at = now();
  const id = newId(at);
  insertPoll(deps.db, {
    id,
    status_id: statusId,
    account_id: accountId,
    options: JSON.stringify(params.options),
    tallies: JSON.stringify(params.options.map(() => 0)),
    multiple: params.multiple ? 1 : 0,
    hide_totals: params.hide_totals ? 1 : 0,
    voters_count: 0,
    expires_at: at + params.expires_in * 1000,
    created_at: at,
  });
  return id;
}
