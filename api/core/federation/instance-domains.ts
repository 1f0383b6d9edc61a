import { domainToASCII } from 'node:url';
import type { Db } from '../../db/connection.js';
import { getSettingTexts, setSetting } from '../../db/repos/settings.js';
import { badRequest } from '../../util/errors.js';
import type { Deps } from '../deps.js';

const BLOCKS = 'federation.domain_blocks';
const ALLOWS = 'federation.domain_allows';

/** Which list a domain goes into: blocked (never federate) or allowed (allow-list mode). */
export type DomainList = 'block' | 'allow';

/** Lower-case ASCII host (with port), without scheme, path or trailing dot; 400 when not a host. */
export function normalizeInstanceDomain(input: string): string {
  const raw = input.trim().toLowerCase().replace(/^[a-z]+:\/\//, '').replace(/\/.*$/, '').replace(/\.$/, '');
  const [host = '', port] = raw.split(':');
  const ascii = domainToASCII(host);
  if (!ascii || !/^[a-z0-9.-]+$/.test(ascii) || (port !== undefined && !/^\d{1,5}$/.test(port))) throw badRequest('Domain is invalid');
  return port === undefined ? ascii : `${ascii}:${port}`;
}

/** The lists as parsed from their JSON texts, and the hosts decided against them so far. */
interface ParsedLists {
  texts: readonly (string | undefined)[];
  lists: { blocked: readonly string[]; allowed: readonly string[] };
  decided: Map<string, boolean>;
}

// Per connection. Each inbound activity asks about its hosts several times (the key's and the
// actor's host before verification, the sender after): the lists are parsed, and each host decided,
// once for as long as the settings' texts stay the same (getSettingTexts sees every change).
const parsed = new WeakMap<Db, ParsedLists>();

function parsedLists(deps: Deps): ParsedLists {
  const texts = getSettingTexts(deps.db, [BLOCKS, ALLOWS]);
  let p = parsed.get(deps.db);
  if (!p || p.texts[0] !== texts[0] || p.texts[1] !== texts[1]) {
    const parse = (text: string | undefined) => (text === undefined ? [] : (JSON.parse(text) as string[]));
    p = { texts, lists: { blocked: parse(texts[0]), allowed: parse(texts[1]) }, decided: new Map() };
    parsed.set(deps.db, p);
  }
  return p;
}

function list(deps: Deps, which: DomainList): string[] {
  const { lists } = parsedLists(deps);
  return [...(which === 'block' ? lists.blocked : lists.allowed)];
}

/** The instance's blocked and allowed domains. */
export function instanceDomains(deps: Deps): { blocked: string[]; allowed: string[] } {
  return { blocked: list(deps, 'block'), allowed: list(deps, 'allow') };
}

/** Adds a domain to a list (a no-op when present); returns the normalized domain. */
export function addInstanceDomain(deps: Deps, which: DomainList, input: string): string {
  const domain = normalizeInstanceDomain(input);
  const current = list(deps, which);
  if (!current.includes(domain)) setSetting(deps.db, which === 'block' ? BLOCKS : ALLOWS, [...current, domain].sort());
  return domain;
}

/** Removes a domain from a list; returns whether it was there. */
export function removeInstanceDomain(deps: Deps, which: DomainList, input: string): boolean {
  const domain = normalizeInstanceDomain(input);
  const current = list(deps, which);
  if (!current.includes(domain)) return false;
  setSetting(deps.db, which === 'block' ? BLOCKS : ALLOWS, current.filter((d) => d !== domain));
  return true;
}

function covers(entry: string, host: string): boolean {
  return host === entry || host.endsWith(`.${entry}`);
}

/** Whether `host` (normalized) passes the lists: not blocked, and allowed when any domain is. */
function decide(lists: { blocked: readonly string[]; allowed: readonly string[] }, host: string): boolean {
  let h: string;
  try {
    h = normalizeInstanceDomain(host);
  } catch {
    return false;
  }
  const bare = h.replace(/:\d+$/, '');
  const match = (entry: string) => covers(entry, h) || covers(entry, bare);
  if (lists.blocked.some(match)) return false;
  return lists.allowed.length === 0 || lists.allowed.some(match);
}

/**
 * Whether the instance federates with a host (`example.com` or `127.0.0.2:7000`): never with a
 * blocked domain or its subdomains; and once any domain is allowed (allow-list mode), only with
 * the allowed ones and their subdomains. Applies to inbound and outbound federation alike.
 */
export function federatesWith(deps: Deps, host: string): boolean {
  const p = parsedLists(deps);
  let ok = p.decided.get(host);
  if (ok === undefined) {
    ok = decide(p.lists, host);
    // Hosts come from remote input: a bound keeps a flood of names from growing it.
    if (p.decided.size < 10_000) p.decided.set(host, ok);
  }
  return ok;
}

/**
 * `federatesWith` for many hosts at once (one delivery to thousands of followers): the lists are
 * read once, when the filter is made, and each distinct host is decided once. Meant for one
 * delivery, not to be kept: a block added later is not seen by an existing filter.
 */
export function federationFilter(deps: Deps): (host: string) => boolean {
  const lists = instanceDomains(deps);
  const decided = new Map<string, boolean>();
  return (host) => {
    let ok = decided.get(host);
    if (ok === undefined) {
      ok = decide(lists, host);
      decided.set(host, ok);
    }
    return ok;
  };
}
