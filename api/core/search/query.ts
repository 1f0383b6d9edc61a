/**
 * Mastodon's search query syntax for statuses, as far as a local index supports it: words and
 * "quoted phrases" (all must match), -word and -"phrase" (must not match), and the operators
 * from:, has:, is:, language:, before:, after:, during: and in:. Unknown operators are searched as
 * words. The result is turned into FTS5 expressions whose every term is quoted, so user input
 * can never be read as FTS5 syntax.
 */

/** A parsed statuses query. */
export interface ParsedQuery {
  terms: string[];
  excluded: string[];
  /** Handles from `from:` ('me' stays 'me'). */
  from: string[];
  /** null: none asked; []: any media; otherwise media types. */
  mediaTypes: string[] | null;
  hasPoll: boolean;
  isReply: boolean;
  isSensitive: boolean;
  language: string | null;
  createdFrom: number | null;
  createdBefore: number | null;
  scope: 'all' | 'library' | 'public';
  /** An operator could not be satisfied (e.g. has:link with no link previews here): nothing matches. */
  impossible: boolean;
}

const TOKEN = /(-?)(?:([a-z]+):)?(?:"([^"]*)"?|(\S+))/gi;
const DAY = 86_400_000;

function parseDay(value: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  if (!match) return null;
  const ms = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isNaN(ms) ? null : ms;
}

function hasWordCharacter(s: string): boolean {
  return /[\p{L}\p{N}]/u.test(s);
}

/** Parses a search query. */
export function parseStatusQuery(q: string): ParsedQuery {
  const out: ParsedQuery = {
    terms: [],
    excluded: [],
    from: [],
    mediaTypes: null,
    hasPoll: false,
    isReply: false,
    isSensitive: false,
    language: null,
    createdFrom: null,
    createdBefore: null,
    scope: 'all',
    impossible: false,
  };
  for (const match of q.matchAll(TOKEN)) {
    const negated = match[1] === '-';
    const operator = match[2]?.toLowerCase();
    const value = (match[3] ?? match[4] ?? '').trim();
    if (value === '') continue;
    if (operator !== undefined && !negated && applyOperator(out, operator, value)) continue;
    // Not an operator (or a negated one, which is not supported): search the text as written.
    const text = operator !== undefined ? `${match[2]}:${value}` : value;
    if (!hasWordCharacter(text)) continue;
    (negated ? out.excluded : out.terms).push(text);
  }
  return out;
}

function applyOperator(out: ParsedQuery, operator: string, value: string): boolean {
  const v = value.toLowerCase();
  switch (operator) {
    case 'from':
      out.from.push(v.replace(/^@/, ''));
      return true;
    case 'has':
      if (v === 'media') out.mediaTypes = out.mediaTypes ?? [];
      else if (v === 'image' || v === 'video' || v === 'audio') out.mediaTypes = [...(out.mediaTypes ?? []), ...(v === 'image' ? ['image', 'gifv'] : [v])];
      else if (v === 'poll') out.hasPoll = true;
      else out.impossible = true;
      return true;
    case 'is':
      if (v === 'reply') out.isReply = true;
      else if (v === 'sensitive') out.isSensitive = true;
      else return false;
      return true;
    case 'language':
      out.language = v;
      return true;
    case 'before':
    case 'after':
    case 'during': {
      const day = parseDay(v);
      if (day === null) return false;
      if (operator === 'before') out.createdBefore = Math.min(out.createdBefore ?? Infinity, day);
      else if (operator === 'after') out.createdFrom = Math.max(out.createdFrom ?? -Infinity, day + DAY);
      else {
        out.createdFrom = Math.max(out.createdFrom ?? -Infinity, day);
        out.createdBefore = Math.min(out.createdBefore ?? Infinity, day + DAY);
      }
      return true;
    }
    case 'in':
      if (v === 'library' || v === 'public' || v === 'all') {
        out.scope = v;
        return true;
      }
      return false;
    default:
      return false;
  }
}

/** One FTS5 string: double quotes doubled, so it is always a phrase, never syntax. */
function quote(term: string): string {
  return `"${term.replace(/"/g, '""')}"`;
}

/** The FTS5 expression that every term must match (null when there are none). */
export function matchExpression(terms: readonly string[]): string | null {
  return terms.length ? terms.map(quote).join(' AND ') : null;
}

/** The FTS5 expression that excluded terms match (null when there are none). */
export function excludeExpression(terms: readonly string[]): string | null {
  return terms.length ? terms.map(quote).join(' OR ') : null;
}
