import type { PageBounds } from '../../db/paging.js';
import { findDomainAllow, pageDomainAllows, type DomainAllowRow } from '../../db/repos/domain-rules.js';
import { toMastodonAdminDomainAllow, type AdminDomainAllow } from '../../serializers/admin-domain-block.js';
import { notFound } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { allowInstanceDomain, disallowInstanceDomain } from '../federation/instance-domains.js';
import { adminDomainParam } from './domain-blocks.js';

/**
 * The admin API's domain allows (`/api/v1/admin/domain_allows`), over the instance's one rule set:
 * once any domain is allowed, only allowed domains (and their subdomains) federate, as the
 * `hearth domain allow` command has it. Callers check manage_federation first.
 */

/** One page of allowed domains, newest first. */
export function listDomainAllows(deps: Deps, page: PageBounds): AdminDomainAllow[] {
  return pageDomainAllows(deps.db, page).map(toMastodonAdminDomainAllow);
}

function loadAllow(deps: Deps, id: string): DomainAllowRow {
  const row = findDomainAllow(deps.db, id);
  if (!row) throw notFound();
  return row;
}

/** One allowed domain, or 404. */
export function showDomainAllow(deps: Deps, id: string): AdminDomainAllow {
  return toMastodonAdminDomainAllow(loadAllow(deps, id));
}

/**
 * Allows a domain (422 when blank or invalid). A domain already allowed answers its existing
 * record, as Mastodon does, and nothing is written.
 */
export function createDomainAllow(deps: Deps, domain: string | undefined): AdminDomainAllow {
  return toMastodonAdminDomainAllow(allowInstanceDomain(deps, adminDomainParam(domain)).row);
}

/** Removes an allowed domain (404 when unknown); answers the record it removed. */
export function deleteDomainAllow(deps: Deps, id: string): AdminDomainAllow {
  const row = loadAllow(deps, id);
  if (!disallowInstanceDomain(deps, id)) throw notFound();
  return toMastodonAdminDomainAllow(row);
}
