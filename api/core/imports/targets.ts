import { domainToASCII } from 'node:url';
import { findAccountById, type AccountRow } from '../../db/repos/accounts.js';
import { findStatusById, findStatusByUri } from '../../db/repos/statuses.js';
import { unicodeDomain } from '../../serializers/account.js';
import { ApiError } from '../../util/errors.js';
import { allowedHostNames, isHostAllowed } from '../../util/hosts.js';
import { FetchError, safeFetch } from '../../util/safe-fetch.js';
import { HEARTH_VERSION } from '../../util/version.js';
import { lookupAccount } from '../accounts/read.js';
import type { Deps } from '../deps.js';
import { federatesWith } from '../federation/instance-domains.js';
import { resolveForSearch } from '../federation/resolver.js';

/** Why a row could not be done: a code and a sentence for the person. */
export interface RowFailure {
  reason: string;
  message: string;
}

/** What a row names, found, or why not. */
export type Found<T> = { ok: true; value: T } | ({ ok: false } & RowFailure);

/** A host as federation compares hosts: lower case, punycode, with its port. */
export function asciiHost(host: string): string {
  const m = /^(.*?)(:\d+)?$/.exec(host.toLowerCase());
  const name = m?.[1] ?? host;
  return (domainToASCII(name) || name) + (m?.[2] ?? '');
}

const fail = (reason: string, message: string): { ok: false } & RowFailure => ({ ok: false, reason, message });

/**
 * Whether `host` is this instance: its address, or the one the uploader reached it at. A local-only
 * instance has no address of its own and speaks to no other server: any name it answers at is it
 * (an export made through its HTTPS listener names `hearth.localhost`, one made over HTTP 127.0.0.1).
 */
export function isLocalHost(deps: Deps, host: string, localDomain: string): boolean {
  const h = host.toLowerCase();
  if (h === localDomain || h === deps.uris.domain.toLowerCase()) return true;
  return deps.config.origin === null && isHostAllowed(h, allowedHostNames(deps.config));
}

/** A local post's id from its ActivityPub id (`/users/u/statuses/1`) or web address (`/@u/1`), or null. */
export function localStatusId(deps: Deps, url: URL): string | null {
  const m = /^\/(?:users\/([^/]+)\/statuses|@([^/]+))\/(\d{1,19})\/?$/.exec(url.pathname);
  if (!m) return null;
  const status = findStatusById(deps.db, m[3] ?? '');
  const author = status ? findAccountById(deps.db, status.account_id) : undefined;
  let username: string;
  try {
    username = decodeURIComponent(m[1] ?? m[2] ?? '').toLowerCase();
  } catch {
    return null;
  }
  return status && author && author.domain === null && author.username.toLowerCase() === username ? status.id : null;
}

/** How long a check that a server answers at all may take. */
const PROBE_TIMEOUT_MS = 10_000;

/** How long the answer of such a check stands (Mastodon's importer rests a failing server for 5 minutes). */
const PROBE_KEPT_MS = 5 * 60_000;

/**
 * Finds the accounts and posts an import's rows name, as `GET /api/v1/accounts/lookup` and search
 * with `resolve=true` find them: local ones in the database, remote ones fetched over WebFinger and
 * ActivityPub through the instance's resolver (stale ones refreshed). When a remote one cannot be
 * found, the server is asked once whether it answers at all, so that the person reads "could not
 * reach" rather than "not found" for a server that is down, and the other rows of that server fail
 * at once instead of waiting for it each time (as Mastodon's importer stops asking a failing
 * server for a while). One Resolver serves one run of the job.
 */
export class Resolver {
  private readonly probes = new Map<string, { at: number; answer: Promise<boolean> }>();

  constructor(private readonly deps: Deps) {}

  private isLocal(host: string, localDomain: string): boolean {
    return isLocalHost(this.deps, host, localDomain);
  }

  /** The account `acct` (`user` or `user@domain`) names. */
  async account(acct: string, localDomain: string): Promise<Found<AccountRow>> {
    const at = acct.indexOf('@');
    const username = at < 0 ? acct : acct.slice(0, at);
    const domain = at < 0 ? null : asciiHost(acct.slice(at + 1));
    if (domain === null || this.isLocal(domain, localDomain)) {
      const found = this.known(username);
      return found ? { ok: true, value: found } : fail('account_not_found', `There is no account @${username} on this instance`);
    }
    const handle = `${username}@${unicodeDomain(domain)}`;
    if (!federatesWith(this.deps, domain)) return fail('domain_blocked', `This instance does not federate with ${domain}`);
    if (this.deps.config.origin === null) {
      const known = this.known(handle);
      return known ? { ok: true, value: known } : fail('federation_off', `${handle} is on another server, and this instance does not federate (it has no public origin)`);
    }
    if ((await this.lastProbe(domain)) === false) return fail('domain_unreachable', `Could not reach ${domain}`);
    await resolveForSearch(this.deps, handle);
    const found = this.known(handle);
    if (found) return { ok: true, value: found };
    if (!(await this.probe(domain))) return fail('domain_unreachable', `Could not reach ${domain}`);
    return fail('account_not_found', `${domain} has no account ${handle}`);
  }

  /** The id of the post `url` names (an ActivityPub id, or a local post's address). */
  async status(url: string, localDomain: string): Promise<Found<string>> {
    const parsed = new URL(url);
    if (this.isLocal(parsed.host, localDomain)) {
      const id = localStatusId(this.deps, parsed);
      return id ? { ok: true, value: id } : fail('status_not_found', 'There is no such post on this instance');
    }
    const known = findStatusByUri(this.deps.db, url);
    if (known) return { ok: true, value: known.id };
    const host = asciiHost(parsed.host);
    if (!federatesWith(this.deps, host)) return fail('domain_blocked', `This instance does not federate with ${host}`);
    if (this.deps.config.origin === null) return fail('federation_off', `The post is on another server, and this instance does not federate (it has no public origin)`);
    if ((await this.lastProbe(host)) === false) return fail('domain_unreachable', `Could not reach ${host}`);
    await resolveForSearch(this.deps, url);
    const fetched = findStatusByUri(this.deps.db, url);
    if (fetched) return { ok: true, value: fetched.id };
    if (!(await this.probe(host))) return fail('domain_unreachable', `Could not reach ${host}`);
    return fail('status_not_found', `${host} has no public post at this address`);
  }

  /** A known account by handle, or null (a sign-up still waiting for approval is not one). */
  private known(handle: string): AccountRow | null {
    try {
      return findAccountById(this.deps.db, lookupAccount(this.deps, handle).account.id) ?? null;
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    }
  }

  /** The answer of a recent check of `host`, if there was one. */
  private lastProbe(host: string): Promise<boolean> | undefined {
    const probe = this.probes.get(host);
    return probe && Date.now() - probe.at < PROBE_KEPT_MS ? probe.answer : undefined;
  }

  /** Whether the server at `host` answers HTTP at all (any answer counts); asked again after a while. */
  private probe(host: string): Promise<boolean> {
    let answer = this.lastProbe(host);
    if (!answer) {
      // Peers speak http only under the loopback test switch with an http origin (as resolution does).
      const scheme = this.deps.config.federationAllowLoopback && this.deps.uris.base.startsWith('http://') ? 'http' : 'https';
      answer = safeFetch(`${scheme}://${host}/.well-known/host-meta`, {
        timeoutMs: PROBE_TIMEOUT_MS,
        maxBytes: 64 * 1024,
        maxRedirects: 3,
        allowPrivate: this.deps.config.federationAllowLoopback,
        accept: '*/*',
        userAgent: `Hearth/${HEARTH_VERSION} (+${this.deps.uris.base})`,
      }).then(
        () => true,
        (err: unknown) => err instanceof FetchError && err.reason === 'status',
      );
      this.probes.set(host, { at: Date.now(), answer });
    }
    return answer;
  }
}
