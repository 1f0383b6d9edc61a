import { createHash } from 'node:crypto';
import { domainToASCII, domainToUnicode } from 'node:url';
import type { Db } from '../../db/connection.js';
import {
  allDomainAllows,
  allDomainBlocks,
  deleteDomainAllow,
  deleteDomainBlock,
  domainBlocksFor,
  findDomainAllowByDomain,
  insertDomainAllow,
  insertDomainBlock,
  markDomainAccounts,
  remoteAccountDomains,
  remoteMediaOwnerDomain,
  ruleSetVersion,
  unmarkDomainAccounts,
  updateDomainBlock,
  type DomainAllowRow,
  type DomainBlockRow,
} from '../../db/repos/domain-rules.js';
import { now } from '../../util/clock.js';
import { badRequest } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';

/**
 * The instance's domain rules: one rule set (tables `instance_domain_blocks` and
 * `instance_domain_allows`) for the `hearth domain` command and the admin API alike. A block's
 * severity decides what it does: `suspend` stops all federation with the domain and its
 * subdomains, in and out; `silence` limits the domain's accounts; `noop` only carries the flags
 * (`reject_media`, `reject_reports`). Once any domain is allowed (allow-list mode), only allowed
 * domains federate. The admin API's validation and entities live in core/admin/domain-*.ts.
 */

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

/** Whether a rule for `entry` covers `host`: the same domain or a subdomain of it. */
function covers(entry: string, host: string): boolean {
  return host === entry || host.endsWith(`.${entry}`);
}

/** Whether a rule covers a normalized host, with or without its port. */
function ruleCovers(entry: string, host: string): boolean {
  return covers(entry, host) || covers(entry, host.replace(/:\d+$/, ''));
}

/**
 * The domains whose rules apply to a normalized host, most specific first: the host itself, the
 * host without its port, then each parent domain (an address has none).
 */
export function domainVariants(host: string): string[] {
  const out = [host];
  const bare = host.replace(/:\d+$/, '');
  if (bare !== host) out.push(bare);
  if (/^[\d.]+$/.test(bare) || bare.includes(':')) return out;
  const parts = bare.split('.');
  for (let i = 1; i < parts.length; i++) out.push(parts.slice(i).join('.'));
  return out;
}

/** The rules as parsed, the version they were read at, and the hosts decided against them. */
interface ParsedRules {
  version: number;
  blocks: readonly DomainBlockRow[];
  allowed: readonly string[];
  decided: Map<string, boolean>;
}

// Per connection. Each inbound activity asks about its hosts several times (the key's and the
// actor's host before verification, the sender after): the rules are read, and each host decided,
// once for as long as the rule set's version stays put (every write moves it, whatever the
// connection: see migration 0093).
const parsed = new WeakMap<Db, ParsedRules>();

function currentRules(db: Db): ParsedRules {
  const version = ruleSetVersion(db, 'domains');
  const cached = parsed.get(db);
  if (cached && cached.version === version) return cached;
  const fresh: ParsedRules = { version, blocks: allDomainBlocks(db), allowed: allDomainAllows(db).map((a) => a.domain), decided: new Map() };
  // Inside a transaction the rows may yet roll back (and the version with them, to be reached
  // again by other rows): what it reads is not kept.
  if (!db.raw.inTransaction) parsed.set(db, fresh);
  return fresh;
}

/** The most specific block that covers a host (with or without its port), if any. */
function blockCovering(blocks: readonly DomainBlockRow[], host: string): DomainBlockRow | undefined {
  let best: DomainBlockRow | undefined;
  for (const b of blocks) if (ruleCovers(b.domain, host) && (!best || b.domain.length > best.domain.length)) best = b;
  return best;
}

/** Whether `host` passes the rules: no suspension covers it, and it is allowed when any domain is. */
function decide(rules: Pick<ParsedRules, 'blocks' | 'allowed'>, host: string): boolean {
  let h: string;
  try {
    h = normalizeInstanceDomain(host);
  } catch {
    return false;
  }
  if (rules.blocks.some((b) => b.severity === 'suspend' && ruleCovers(b.domain, h))) return false;
  return rules.allowed.length === 0 || rules.allowed.some((entry) => ruleCovers(entry, h));
}

/**
 * Whether the instance federates with a host (`example.com` or `127.0.0.2:7000`): never with a
 * suspended domain or its subdomains; and once any domain is allowed (allow-list mode), only with
 * the allowed ones and their subdomains. Applies to inbound and outbound federation alike.
 */
export function federatesWith(deps: Deps, host: string): boolean {
  const rules = currentRules(deps.db);
  let ok = rules.decided.get(host);
  if (ok === undefined) {
    ok = decide(rules, host);
    // Hosts come from remote input: a bound keeps a flood of names from growing it.
    if (rules.decided.size < 10_000) rules.decided.set(host, ok);
  }
  return ok;
}

/**
 * `federatesWith` for many hosts at once (one delivery to thousands of followers): the rules are
 * read once, when the filter is made, and each distinct host is decided once. Meant for one
 * delivery, not to be kept: a block added later is not seen by an existing filter.
 */
export function federationFilter(deps: Deps): (host: string) => boolean {
  const rules = currentRules(deps.db);
  const decided = new Map<string, boolean>();
  return (host) => {
    let ok = decided.get(host);
    if (ok === undefined) {
      ok = decide(rules, host);
      decided.set(host, ok);
    }
    return ok;
  };
}

/** The block that applies to a host (the most specific one covering it), if any. */
export function domainBlockFor(deps: Deps, host: string | null): DomainBlockRow | undefined {
  if (host === null) return undefined;
  let h: string;
  try {
    h = normalizeInstanceDomain(host);
  } catch {
    return undefined;
  }
  return blockCovering(currentRules(deps.db).blocks, h);
}

/** Whether reports (Flag) from this domain are dropped (a block with `reject_reports`). */
export function rejectsReportsFrom(deps: Deps, host: string | null): boolean {
  return domainBlockFor(deps, host)?.reject_reports === 1;
}

/**
 * Whether media from this remote record's domain is refused (a block with `reject_media`): the
 * domain of the account or emoji it belongs to, or the host of its URL, whichever a block covers.
 * Such files are neither copied here nor proxied; the entity keeps its remote URL.
 */
export function rejectsMediaFrom(deps: Deps, ownerDomain: string | null, url: string | null): boolean {
  if (domainBlockFor(deps, ownerDomain)?.reject_media === 1) return true;
  if (url === null) return false;
  try {
    return domainBlockFor(deps, new URL(url).host)?.reject_media === 1;
  } catch {
    return false;
  }
}

/**
 * `rejectsMediaFrom` for a remote media record (an attachment, an avatar or header, an emoji) and
 * the URL it would come from: the remote media cache and the media proxy ask before fetching.
 */
export function rejectsRemoteMedia(deps: Deps, kind: 'attachment' | 'avatar' | 'header' | 'emoji', id: string, url: string | null): boolean {
  // Without any block that rejects media (the usual case) there is nothing to look up.
  if (!currentRules(deps.db).blocks.some((b) => b.reject_media === 1)) return false;
  return rejectsMediaFrom(deps, remoteMediaOwnerDomain(deps.db, kind, id), url);
}

/**
 * The moderation a new remote account of this domain starts with, as Mastodon gives it: limited
 * under a silencing block, suspended under a suspension, at the block's time (so that lifting the
 * block lifts exactly what it set).
 */
export function moderationOfNewAccount(deps: Deps, domain: string | null): { silenced_at?: number; suspended_at?: number } {
  const block = domainBlockFor(deps, domain);
  if (block?.severity === 'silence') return { silenced_at: block.created_at };
  if (block?.severity === 'suspend') return { suspended_at: block.created_at };
  return {};
}

/** The instance's blocked (any severity) and allowed domains. */
export function instanceDomains(deps: Deps): { blocked: string[]; allowed: string[] } {
  const rules = currentRules(deps.db);
  return { blocked: rules.blocks.map((b) => b.domain).sort(), allowed: [...rules.allowed].sort() };
}

/** Every domain block, oldest first (for the CLI's list). */
export function instanceDomainBlocks(deps: Deps): DomainBlockRow[] {
  return [...currentRules(deps.db).blocks];
}

/** A domain block as `GET /api/v1/instance/domain_blocks` shows it (Mastodon's DomainBlock). */
export interface PublicDomainBlock {
  domain: string;
  /** SHA-256 of the domain, hex. */
  digest: string;
  severity: 'silence' | 'suspend';
  comment: string | null;
}

/** A domain as the public list shows it: in Unicode, its middle starred when it is obfuscated. */
function publicDomain(block: DomainBlockRow): string {
  const shown = domainToUnicode(block.domain) || block.domain;
  if (block.obfuscate !== 1) return shown;
  const chars = [...shown];
  const keep = Math.floor(chars.length / 4);
  return chars.map((c, i) => (i > keep && i < chars.length - keep && c !== '.' ? '*' : c)).join('');
}

/**
 * The domain blocks the instance publishes: those that limit or suspend (a `noop` block is
 * moderation bookkeeping), limits before suspensions and then by domain, as Mastodon orders them.
 * The digest is of the stored (ASCII) form; the comment is the block's public comment.
 */
export function publicDomainBlockList(deps: Deps): PublicDomainBlock[] {
  const rank = (b: DomainBlockRow) => (b.severity === 'silence' ? 0 : 1);
  return currentRules(deps.db)
    .blocks.filter((b): b is DomainBlockRow & { severity: 'silence' | 'suspend' } => b.severity !== 'noop')
    .sort((a, b) => rank(a) - rank(b) || a.domain.localeCompare(b.domain))
    .map((b) => ({ domain: publicDomain(b), digest: createHash('sha256').update(b.domain).digest('hex'), severity: b.severity, comment: b.public_comment || null }));
}

/** The known remote domains a rule for `domain` covers. */
function coveredAccountDomains(deps: Deps, domain: string): string[] {
  return remoteAccountDomains(deps.db).filter((d) => ruleCovers(domain, d));
}

/**
 * Sets on the domain's known accounts what a block's severity implies (suspended or limited, at
 * the block's time), or clears what an earlier state of the same block set, as Mastodon's
 * BlockDomainService and UnblockDomainService do. Runs inside the caller's transaction.
 */
function applyToAccounts(deps: Deps, before: DomainBlockRow | null, after: DomainBlockRow | null): void {
  const block = after ?? before;
  if (!block) return;
  const domains = coveredAccountDomains(deps, block.domain);
  if (before && before.severity !== after?.severity) {
    if (before.severity === 'silence') unmarkDomainAccounts(deps.db, 'silenced_at', domains, before.created_at);
    if (before.severity === 'suspend') unmarkDomainAccounts(deps.db, 'suspended_at', domains, before.created_at);
  }
  if (after && after.severity !== before?.severity) {
    if (after.severity === 'silence') markDomainAccounts(deps.db, 'silenced_at', domains, after.created_at);
    if (after.severity === 'suspend') markDomainAccounts(deps.db, 'suspended_at', domains, after.created_at);
  }
}

/** Writes a new domain block and applies it to the domain's known accounts, in one transaction. */
export function insertInstanceDomainBlock(deps: Deps, row: DomainBlockRow): void {
  deps.db.transaction(() => {
    insertDomainBlock(deps.db, row);
    applyToAccounts(deps, null, row);
  });
}

/** Changes a domain block (severity, flags, comments) and what it does to the domain's accounts. */
export function updateInstanceDomainBlock(deps: Deps, before: DomainBlockRow, after: DomainBlockRow): void {
  deps.db.transaction(() => {
    updateDomainBlock(deps.db, after);
    applyToAccounts(deps, before, after);
  });
}

/** Lifts a domain block, and what it did to the domain's accounts; false when it was gone. */
export function deleteInstanceDomainBlock(deps: Deps, row: DomainBlockRow): boolean {
  return deps.db.transaction(() => {
    if (!deleteDomainBlock(deps.db, row.id)) return false;
    applyToAccounts(deps, row, null);
    return true;
  });
}

/** A new domain block row with Mastodon's defaults (severity silence, no flags, no comments). */
export function newDomainBlockRow(domain: string, fields: Partial<Omit<DomainBlockRow, 'id' | 'domain' | 'created_at' | 'updated_at'>> = {}): DomainBlockRow {
  const at = now();
  return {
    id: newId(at),
    domain,
    severity: 'silence',
    reject_media: 0,
    reject_reports: 0,
    private_comment: null,
    public_comment: null,
    obfuscate: 0,
    ...fields,
    created_at: at,
    updated_at: at,
  };
}

/** Adds an allowed domain, or returns the existing allow of it. */
export function allowInstanceDomain(deps: Deps, domain: string): { row: DomainAllowRow; created: boolean } {
  return deps.db.transaction(() => {
    const existing = findDomainAllowByDomain(deps.db, domain);
    if (existing) return { row: existing, created: false };
    const at = now();
    const row: DomainAllowRow = { id: newId(at), domain, created_at: at };
    insertDomainAllow(deps.db, row);
    return { row, created: true };
  });
}

/** Removes an allowed domain by id; false when it was gone. */
export function disallowInstanceDomain(deps: Deps, id: string): boolean {
  return deps.db.transaction(() => deleteDomainAllow(deps.db, id));
}

/**
 * `hearth domain block|allow DOMAIN`: blocks a domain outright (a suspension, as the command always
 * did), or adds it to the allow list. A domain already blocked becomes suspended whatever its block
 * said; one already allowed stays as it is. Returns the normalized domain.
 */
export function addInstanceDomain(deps: Deps, which: DomainList, input: string): string {
  const domain = normalizeInstanceDomain(input);
  if (which === 'allow') {
    allowInstanceDomain(deps, domain);
    return domain;
  }
  const [existing] = domainBlocksFor(deps.db, [domain]);
  if (!existing) insertInstanceDomainBlock(deps, newDomainBlockRow(domain, { severity: 'suspend' }));
  else if (existing.severity !== 'suspend') updateInstanceDomainBlock(deps, existing, { ...existing, severity: 'suspend', updated_at: now() });
  return domain;
}

/** `hearth domain unblock|disallow DOMAIN`: removes the domain's block or allow; whether it was there. */
export function removeInstanceDomain(deps: Deps, which: DomainList, input: string): boolean {
  const domain = normalizeInstanceDomain(input);
  if (which === 'allow') {
    const existing = findDomainAllowByDomain(deps.db, domain);
    return existing ? disallowInstanceDomain(deps, existing.id) : false;
  }
  const [existing] = domainBlocksFor(deps.db, [domain]);
  return existing ? deleteInstanceDomainBlock(deps, existing) : false;
}
