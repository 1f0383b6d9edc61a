import { findAccountById } from '../../db/repos/accounts.js';
import { findStatusById } from '../../db/repos/statuses.js';
import { notFound } from '../../util/errors.js';
import { isId } from '../../util/ids.js';
import { escapeHtml } from '../../util/text/escape.js';
import type { Deps } from '../deps.js';

/** The oEmbed answer of `GET /api/oembed` for a status (a "rich" embed). */
export interface StatusOEmbed {
  type: 'rich';
  version: '1.0';
  title: string;
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  cache_age: number;
  html: string;
  width: number;
  height: number | null;
}

/** How long a consumer may cache the answer, as Mastodon says (a day). */
const CACHE_AGE = 86_400;
/** Width of the embed when the consumer does not give `maxwidth`, as Mastodon's default. */
const DEFAULT_WIDTH = 400;

/**
 * The local status a URL names: its page (`/@user/:id`) or its ActivityPub id
 * (`/users/user/statuses/:id`) at one of this instance's hosts; the named account must be its
 * author. Anything else names no status here.
 */
function statusIdOf(url: string, hosts: readonly string[]): { username: string; id: string } | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (!hosts.includes(parsed.host.toLowerCase())) return null;
  const path = parsed.pathname.replace(/\/+$/, '');
  const m = /^\/@([^/@]+)\/(\d+)(?:\/embed)?$/.exec(path) ?? /^\/users\/([^/]+)\/statuses\/(\d+)$/.exec(path);
  if (!m || !m[1] || !m[2]) return null;
  return { username: decodeURIComponent(m[1]), id: m[2] };
}

function dimension(raw: string | undefined): number | null {
  if (raw === undefined || !/^\d{1,5}$/.test(raw.trim())) return null;
  return Number(raw.trim());
}

/**
 * `GET /api/oembed?url=…`: an embed of a local public or unlisted status, as Mastodon gives one.
 * The HTML is a blockquote that links to the status (what Mastodon's embed script replaces with
 * its frame); it carries no status text, so it cannot carry anything unsafe. Any other URL, or a
 * status that is not public or unlisted, is 404. `hosts` are the host names the URL may name.
 */
export function statusOEmbed(deps: Deps, url: string, hosts: readonly string[], size: { maxwidth?: string; maxheight?: string }): StatusOEmbed {
  const named = statusIdOf(url, hosts.map((h) => h.toLowerCase()));
  const status = named && isId(named.id) ? findStatusById(deps.db, named.id) : undefined;
  const author = status ? findAccountById(deps.db, status.account_id) : undefined;
  if (
    !named ||
    !status ||
    !author ||
    status.local !== 1 ||
    status.reblog_of_id !== null ||
    (status.visibility !== 'public' && status.visibility !== 'unlisted') ||
    author.username.toLowerCase() !== named.username.toLowerCase() ||
    author.suspended_at !== null
  ) {
    throw notFound();
  }
  const statusUrl = deps.uris.statusUrl(author.username, status.id);
  const handle = `@${author.username}@${deps.uris.domain}`;
  const html =
    `<blockquote class="mastodon-embed" data-embed-url="${escapeHtml(`${statusUrl}/embed`)}" style="max-width: 540px; min-width: 270px; margin: 0;">` +
    `<a href="${escapeHtml(statusUrl)}" target="_blank" rel="noopener">` +
    `<div>Post by ${escapeHtml(handle)}</div><div>View on ${escapeHtml(deps.uris.domain)}</div></a></blockquote>`;
  return {
    type: 'rich',
    version: '1.0',
    title: `New status by ${author.username}`,
    author_name: author.display_name.trim() || author.username,
    author_url: deps.uris.accountUrl(author.username),
    provider_name: deps.uris.domain,
    provider_url: `${deps.uris.base}/`,
    cache_age: CACHE_AGE,
    html,
    width: dimension(size.maxwidth) ?? DEFAULT_WIDTH,
    height: dimension(size.maxheight),
  };
}
