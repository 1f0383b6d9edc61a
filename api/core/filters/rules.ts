import type { FilterAction, FilterContext } from '../../db/repos/filters.js';
import { charLength, isBlank, type Problems } from './problems.js';

/** The contexts a filter may apply in. */
export const FILTER_CONTEXTS: readonly FilterContext[] = ['home', 'notifications', 'public', 'thread', 'account'];
/** The actions a filter may take (blur arrived with Mastodon 4.4). */
export const FILTER_ACTIONS: readonly FilterAction[] = ['warn', 'hide', 'blur'];
/** Longest filter title, in characters. */
export const FILTER_TITLE_MAX = 256;

/**
 * Contexts as Mastodon cleans them before validating: values trimmed, blanks dropped (and
 * repeats, which mean nothing). None left, or an unknown one, is a problem.
 */
export function checkContexts(problems: Problems, values: readonly string[]): FilterContext[] {
  const cleaned = [...new Set(values.map((v) => v.trim()).filter((v) => v !== ''))];
  if (cleaned.length === 0) problems.blank('context', 'Context');
  if (cleaned.length === 0 || cleaned.some((v) => !(FILTER_CONTEXTS as readonly string[]).includes(v))) {
    problems.add('context', 'Context', 'ERR_INVALID', 'None or invalid context supplied');
  }
  return cleaned as FilterContext[];
}

/** A filter title: required, at most FILTER_TITLE_MAX characters. */
export function checkTitle(problems: Problems, title: string, attribute = 'title', label = 'Title'): void {
  if (isBlank(title)) problems.blank(attribute, label);
  else if (charLength(title) > FILTER_TITLE_MAX) problems.tooLong(attribute, label, FILTER_TITLE_MAX);
}

/** A filter action, one of FILTER_ACTIONS. */
export function checkAction(problems: Problems, value: string): FilterAction {
  if (!(FILTER_ACTIONS as readonly string[]).includes(value)) problems.add('filter_action', 'Filter action', 'ERR_INCLUSION', 'is not included in the list');
  return value as FilterAction;
}

/**
 * The expiry time for `expires_in` (seconds from `at`): null or '' means never; anything else must
 * be a whole, positive number of seconds.
 */
export function checkExpiresIn(problems: Problems, value: string | number | null, at: number): number | null {
  if (value === null || value === '') return null;
  const seconds = typeof value === 'number' ? value : /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(seconds)) {
    problems.add('expires_in', 'Expires in', 'ERR_INVALID', 'is not a number');
    return null;
  }
  if (seconds <= 0) {
    problems.add('expires_in', 'Expires in', 'ERR_INVALID', 'must be greater than 0');
    return null;
  }
  return at + seconds * 1000;
}

/** A keyword: required (attribute and label as the caller reports it). */
export function checkKeyword(problems: Problems, keyword: string, attribute = 'keyword', label = 'Keyword'): void {
  if (isBlank(keyword)) problems.blank(attribute, label);
}
