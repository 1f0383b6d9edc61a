import type { mastodon } from 'masto';
import { profilePath, threadPath } from '../../components/status/paths';

/** What `/open?uri=` names: an object or account by URL, or an account by handle. */
export type OpenTarget = { kind: 'url'; url: string } | { kind: 'acct'; username: string; host: string | null };

/** The longest `uri` taken (a link's URL within the desktop's own limit, with room for a handle). */
const MAX_URI = 2048;
const USER = /^[\p{L}\p{N}_](?:[\p{L}\p{N}_.-]{0,62}[\p{L}\p{N}_])?$/u;
const HOST = /^[a-z0-9.-]+(?::\d{1,5})?$/i;

/**
 * Reads the `uri` of `/open`: an `https:` URL (or an `http:` one of this very instance, as a
 * local-only instance names its posts), or a handle (`acct:user@host`, `@user@host`, `user@host`,
 * or a local `user`). Null for anything else: other schemes, credentials, oversized or blank input.
 */
export function parseOpenTarget(uri: string, ownOrigin: string): OpenTarget | null {
  const text = uri.trim();
  if (text === '' || text.length > MAX_URI) return null;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    if (url.username !== '' || url.password !== '') return null;
    const own = url.origin === ownOrigin;
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && own)) return null;
    url.hash = '';
    return { kind: 'url', url: url.href };
  }
  const m = /^(?:acct:)?@?([^@\s/]+)(?:@([^@\s/]+))?$/i.exec(text);
  if (!m) return null;
  const username = m[1] ?? '';
  const host = m[2]?.toLowerCase() ?? null;
  if (!USER.test(username) || (host !== null && !HOST.test(host))) return null;
  return { kind: 'acct', username, host };
}

/** The search query for a target: the URL, or `@user@host`. */
export function searchQuery(target: OpenTarget): string {
  if (target.kind === 'url') return target.url;
  return target.host ? `@${target.username}@${target.host}` : `@${target.username}`;
}

/**
 * Where the app shows what the search found: the post's thread for a URL that names a post, the
 * profile for an account (by URL, or the one whose handle is the target's). Null when nothing fits.
 */
export function destination(target: OpenTarget, found: Pick<mastodon.v2.Search, 'accounts' | 'statuses'>, ownHost: string): string | null {
  if (target.kind === 'url') {
    const status = found.statuses[0];
    if (status) return threadPath(status);
    const account = found.accounts[0];
    return account ? profilePath(account) : null;
  }
  const wanted = target.username.toLowerCase();
  const match = found.accounts.find((a) => {
    const [user, domain] = a.acct.toLowerCase().split('@');
    if (user !== wanted) return false;
    // A local account's acct has no domain: it matches a handle at this instance's host, or none.
    if (domain === undefined) return target.host === null || target.host === ownHost.toLowerCase();
    return target.host === null || domain === target.host;
  });
  return match ? profilePath(match) : null;
}
