// `web+mastodon://` and `web+ap://` links opened from other apps (issue 17, item 4): parsed into a
// path of the app, or refused. Plain: the main process registers the schemes
// (app.setAsDefaultProtocolClient for each of LINK_SCHEMES), takes the URL from macOS's
// `open-url` event or from a second launch's arguments (`linkFromArgv`), and sends the window the
// path (the `navigate` event). The app's `/open` screen resolves what `/open?uri=` names through
// the instance's search; `/compose?text=` starts a post with shared text.

/** The schemes Hearth opens. */
export const LINK_SCHEMES = ['web+mastodon', 'web+ap'] as const;

/** A link as the app opens it, or why it is refused. */
export type LinkResult = { ok: true; path: string } | { ok: false; error: string };

/** The longest link taken at all (characters). */
export const MAX_LINK = 4096;
/** The longest object URL passed on. */
export const MAX_URL = 2048;
/** The longest shared text passed on. */
export const MAX_TEXT = 5000;

const refuse = (error: string): LinkResult => ({ ok: false, error });

/** A DNS host name of two labels or more (no IP literals, no single-label or local names). */
const HOST = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,61}[a-z0-9]$/;
/** A username as fediverse servers write them. */
const USER = /^[A-Za-z0-9_](?:[A-Za-z0-9_.-]{0,62}[A-Za-z0-9_])?$/;
/** C0 and C1 controls, whitespace and the bidirectional overrides: none belongs in a link. */
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

function isLocalName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost') || host.endsWith('.local') || host.endsWith('.internal');
}

/**
 * An object's address: an absolute `https:` URL of a public host name, without credentials, within
 * MAX_URL; its fragment is dropped. Null when it is anything else.
 */
export function checkObjectUrl(text: string): string | null {
  if (text.length > MAX_URL || UNSAFE_CHARS.test(text) || !/^https:\/\//i.test(text)) return null;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || url.username !== '' || url.password !== '') return null;
  if (!HOST.test(url.hostname) || isLocalName(url.hostname)) return null;
  url.hash = '';
  return url.href.length > MAX_URL ? null : url.href;
}

/** `acct:user@host`, `@user@host` or `user@host` as `acct:user@host` (host lower-cased), or null. */
export function checkAcct(text: string): string | null {
  const m = /^(?:acct:)?@?([^@\s]+)@([^@\s]+)$/i.exec(text);
  if (!m) return null;
  const user = m[1] ?? '';
  const host = (m[2] ?? '').toLowerCase();
  if (!USER.test(user) || !HOST.test(host) || isLocalName(host)) return null;
  return `acct:${user}@${host}`;
}

const openPath = (uri: string) => `/open?uri=${encodeURIComponent(uri)}`;

/** `web+mastodon://follow?uri=…`: an account by handle, or an object by URL. */
function follow(params: URLSearchParams): LinkResult {
  const uri = params.get('uri');
  if (uri === null || uri === '') return refuse('The link names no account.');
  const target = /^https:/i.test(uri) ? checkObjectUrl(uri) : checkAcct(uri);
  return target === null ? refuse('The link’s account is not an address Hearth can open.') : { ok: true, path: openPath(target) };
}

/** `web+mastodon://share?text=…` (and `url=`, added after the text): a new post with that text. */
function share(params: URLSearchParams): LinkResult {
  const parts = [params.get('text') ?? '', params.get('url') ?? ''].map((p) => p.trim()).filter((p) => p !== '');
  const text = parts.join(' ');
  if (text === '') return refuse('The link shares no text.');
  if ([...text].length > MAX_TEXT) return refuse('The shared text is too long.');
  // Control characters other than line breaks and tabs have no place in a post.
  const clean = text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '');
  return { ok: true, path: `/compose?text=${encodeURIComponent(clean)}` };
}

/**
 * Parses a link another app opened into a path of the app:
 * - `web+ap://host/path`: an ActivityPub object or actor with the scheme swapped; opened as
 *   `https://host/path` (`/open?uri=…`);
 * - `web+mastodon://follow?uri=acct:user@host` (or `uri=` an https URL): the account or object
 *   (`/open?uri=acct:user@host`);
 * - `web+mastodon://share?text=…[&url=…]`: a new post with the text (`/compose?text=…`);
 * - `web+mastodon://host/path` and `web+mastodon://https://host/path` (also percent-encoded):
 *   wrappers of an object's URL, opened as that URL.
 * Anything else is refused with a sentence: other schemes, URLs that are not `https:` or carry
 * credentials, IP addresses and local names as hosts, malformed handles, control characters, and
 * anything longer than the limits (MAX_LINK, MAX_URL, MAX_TEXT).
 */
export function parseProtocolLink(raw: string): LinkResult {
  if (typeof raw !== 'string') return refuse('Not a link.');
  const link = raw.trim();
  if (link.length > MAX_LINK) return refuse('The link is too long.');
  if (UNSAFE_CHARS.test(link)) return refuse('The link contains characters that do not belong in a link.');
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(link)?.[1]?.toLowerCase();
  const rest = link.slice((scheme?.length ?? 0) + 3);
  if (scheme === 'web+ap') {
    const url = checkObjectUrl(`https://${rest}`);
    return url === null ? refuse('The link does not name an object on a public server.') : { ok: true, path: openPath(url) };
  }
  if (scheme !== 'web+mastodon') return refuse('Hearth opens only web+mastodon:// and web+ap:// links.');
  // A wrapped URL, plain or percent-encoded once.
  const wrapped = /^https(?::|%3a)/i.test(rest) ? safeDecode(rest) : null;
  if (wrapped !== null) {
    const url = checkObjectUrl(wrapped);
    return url === null ? refuse('The link does not name an object on a public server.') : { ok: true, path: openPath(url) };
  }
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    return refuse('The link is malformed.');
  }
  if (url.username !== '' || url.password !== '') return refuse('The link carries credentials.');
  const action = url.hostname.toLowerCase();
  if (action === 'follow' && (url.pathname === '' || url.pathname === '/')) return follow(url.searchParams);
  if (action === 'share' && (url.pathname === '' || url.pathname === '/')) return share(url.searchParams);
  if (action.includes('.')) {
    const target = checkObjectUrl(`https://${rest}`);
    return target === null ? refuse('The link does not name an object on a public server.') : { ok: true, path: openPath(target) };
  }
  return refuse('Hearth does not know what this link asks for.');
}

function safeDecode(text: string): string | null {
  if (!/%/.test(text)) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return null;
  }
}

/**
 * The link a launch was given: the first argument that is a `web+mastodon:` or `web+ap:` link
 * (Windows and Linux pass the URL as an argument; a second launch's arguments reach the first
 * instance in Electron's `second-instance` event), parsed into the app's path. Null when there is
 * none or it is refused (other arguments, such as Chromium's switches, are passed over).
 */
export function linkFromArgv(argv: readonly string[]): string | null {
  for (const arg of argv) {
    if (typeof arg !== 'string' || !/^(?:web\+mastodon|web\+ap):/i.test(arg)) continue;
    const result = parseProtocolLink(arg);
    return result.ok ? result.path : null;
  }
  return null;
}
