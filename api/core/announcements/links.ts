import { findAccountById } from '../../db/repos/accounts.js';
import { findRemoteStatusByUrl } from '../../db/repos/announcements.js';
import { findStatusById, findStatusByUri, type StatusRow } from '../../db/repos/statuses.js';
import { allowedHostNames, isHostAllowed } from '../../util/hosts.js';
import { isId } from '../../util/ids.js';
import { extractEntities } from '../../util/text/index.js';
import type { Deps } from '../deps.js';

/**
 * Whether a URL is at this instance. With a public origin, only it names the instance (and the
 * address of the request, which builds the URLs here). A local-only instance is reached at every
 * name it answers to (loopback names, the HTTPS listener's, the allowed hosts), whatever the port.
 */
function isOwnUrl(deps: Deps, url: URL): boolean {
  const host = url.host.toLowerCase();
  if (host === new URL(deps.uris.base).host.toLowerCase()) return true;
  if (deps.config.origin) return host === new URL(deps.config.origin).host.toLowerCase();
  const names = allowedHostNames(deps.config);
  return !names.includes('*') && isHostAllowed(host, names);
}

/** A local status named by its page (`/@user/:id`) or its ActivityPub id (`/users/user/statuses/:id`). */
function localStatus(deps: Deps, path: string): StatusRow | undefined {
  const m = /^\/(?:@([^/@]+)|users\/([^/]+)\/statuses)\/(\d+)\/?$/.exec(path);
  const id = m?.[3];
  if (!m || !id || !isId(id)) return undefined;
  const status = findStatusById(deps.db, id);
  const author = status ? findAccountById(deps.db, status.account_id) : undefined;
  let username: string;
  try {
    username = decodeURIComponent(m[1] ?? m[2] ?? '').toLowerCase();
  } catch {
    return undefined;
  }
  if (!status || !author || author.domain !== null || author.username.toLowerCase() !== username) return undefined;
  return status;
}

/** A known remote status by its ActivityPub id or its page's URL. */
function knownRemoteStatus(deps: Deps, url: string): StatusRow | undefined {
  return findStatusByUri(deps.db, url) ?? findRemoteStatusByUrl(deps.db, url);
}

/**
 * The statuses an announcement's text links to, as Mastodon resolves them when it publishes one:
 * each link to a status this instance has (its own, or a remote one it knows), kept when public or
 * unlisted. Nothing is fetched. Ids in order of appearance, without repeats.
 */
export function linkedStatusIds(deps: Deps, text: string): string[] {
  const ids: string[] = [];
  for (const entity of extractEntities(text)) {
    if (entity.kind !== 'url') continue;
    let parsed: URL;
    try {
      parsed = new URL(entity.url);
    } catch {
      continue;
    }
    const status = isOwnUrl(deps, parsed) ? localStatus(deps, parsed.pathname) : knownRemoteStatus(deps, entity.url);
    if (!status || status.reblog_of_id !== null) continue;
    if (status.visibility !== 'public' && status.visibility !== 'unlisted') continue;
    if (!ids.includes(status.id)) ids.push(status.id);
  }
  return ids;
}
