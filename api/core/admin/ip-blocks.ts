import type { Db } from '../../db/connection.js';
import type { PageBounds } from '../../db/paging.js';
import { ruleSetVersion } from '../../db/repos/domain-rules.js';
import {
  allIpBlocks,
  deleteExpiredIpBlocks,
  deleteIpBlock as deleteIpBlockRow,
  findIpBlock,
  findIpBlockByIp,
  insertIpBlock,
  pageIpBlocks,
  updateIpBlock as updateIpBlockRow,
  type IpBlockRow,
  type IpBlockSeverity,
} from '../../db/repos/ip-blocks.js';
import { toMastodonAdminIpBlock, type AdminIpBlock } from '../../serializers/admin-ip-block.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { ipRangeText, parseAddress, parseIpRange, rangeContains, type IpRange } from './ip-blocks-ranges.js';

/**
 * IP blocks (`/api/v1/admin/ip_blocks`) and what they do: `no_access` refuses every request from
 * the range (see http/middleware/ip-access.ts), `sign_up_block` refuses sign-ups and
 * `sign_up_requires_approval` makes them wait for approval. An expired block no longer applies
 * and is no longer listed. Loopback addresses are never matched: apps on this machine (and the
 * owner's way back in) are not the public's. Callers check manage_blocks first.
 */

const SEVERITIES: readonly IpBlockSeverity[] = ['sign_up_requires_approval', 'sign_up_block', 'no_access'];
/** Mastodon's column default, shown by its docs: a block made without `ip` names 0.0.0.0. */
const DEFAULT_IP = '0.0.0.0/32';

/** What a client may set on an IP block (parameters, typed). */
export interface IpBlockParams {
  ip?: string | undefined;
  severity?: string | undefined;
  comment?: string | undefined;
  /** Seconds from now; null clears the expiry (an empty value). */
  expires_in?: number | null | undefined;
}

/** One page of the blocks in force, newest first. */
export function listIpBlocks(deps: Deps, page: PageBounds): AdminIpBlock[] {
  return pageIpBlocks(deps.db, page, now()).map(toMastodonAdminIpBlock);
}

function loadIpBlock(deps: Deps, id: string): IpBlockRow {
  const row = findIpBlock(deps.db, id, now());
  if (!row) throw notFound();
  return row;
}

/** One IP block in force, or 404. */
export function showIpBlock(deps: Deps, id: string): AdminIpBlock {
  return toMastodonAdminIpBlock(loadIpBlock(deps, id));
}

/**
 * Applies parameters over a block and validates the result as Mastodon's IpBlock does, every
 * failure in one 422 ("Ip can't be blank, Severity can't be blank, Ip has already been taken").
 * Runs inside the writing transaction (the uniqueness check must see what it writes against).
 */
function validated(deps: Deps, base: IpBlockRow, p: IpBlockParams, at: number): IpBlockRow {
  const failures: string[] = [];
  let ip = base.ip;
  let ipValid = true;
  if (p.ip !== undefined) {
    const range = parseIpRange(p.ip);
    if (range) ip = ipRangeText(range);
    else {
      ipValid = false;
      failures.push("Ip can't be blank");
    }
  }
  const severity = p.severity === undefined ? base.severity : p.severity;
  if (severity === '') failures.push("Severity can't be blank");
  else if (!(SEVERITIES as readonly string[]).includes(severity)) failures.push('Severity is not included in the list');
  if (ipValid) {
    const other = findIpBlockByIp(deps.db, ip);
    if (other && other.id !== base.id) failures.push('Ip has already been taken');
  }
  if (failures.length > 0) throw unprocessable(failures.join(', '));
  return {
    ...base,
    ip,
    severity: severity as IpBlockSeverity,
    comment: p.comment ?? base.comment,
    expires_at: p.expires_in === undefined ? base.expires_at : p.expires_in === null ? null : at + p.expires_in * 1000,
    updated_at: at,
  };
}

/**
 * Blocks an address range: `ip` (an address or CIDR range, masked to its prefix; 0.0.0.0/32 when
 * not given), `severity` (required), `comment`, `expires_in` seconds. 422 with every failure, as
 * Mastodon words them; a range already blocked is "Ip has already been taken".
 */
export function createIpBlock(deps: Deps, params: IpBlockParams): AdminIpBlock {
  const at = now();
  const base: IpBlockRow = { id: newId(at), ip: DEFAULT_IP, severity: '' as IpBlockSeverity, comment: '', expires_at: null, created_at: at, updated_at: at };
  const row = deps.db.transaction(() => {
    // An expired block is gone: its range may be blocked anew.
    deleteExpiredIpBlocks(deps.db, at);
    const next = validated(deps, base, { ...params, severity: params.severity ?? '' }, at);
    insertIpBlock(deps.db, next);
    return next;
  });
  return toMastodonAdminIpBlock(row);
}

/** Changes what is given of a block in force (404 otherwise), validated as on creation. */
export function updateIpBlock(deps: Deps, id: string, params: IpBlockParams): AdminIpBlock {
  const at = now();
  const row = deps.db.transaction(() => {
    const before = loadIpBlock(deps, id);
    deleteExpiredIpBlocks(deps.db, at);
    const next = validated(deps, before, params, at);
    updateIpBlockRow(deps.db, next);
    return next;
  });
  return toMastodonAdminIpBlock(row);
}

/** Lifts an IP block in force (404 otherwise). */
export function deleteIpBlock(deps: Deps, id: string): void {
  deps.db.transaction(() => {
    loadIpBlock(deps, id);
    deleteIpBlockRow(deps.db, id);
  });
}

/** The rules as parsed, and the rule set's version they were read at. */
interface ParsedIpRules {
  version: number;
  rules: { range: IpRange; severity: IpBlockSeverity; expiresAt: number | null }[];
}

// Per connection: every request asks (no_access), so the rules are parsed once for as long as the
// rule set's version stays put (every write moves it, whatever the connection).
const parsed = new WeakMap<Db, ParsedIpRules>();

function currentIpRules(db: Db): ParsedIpRules {
  const version = ruleSetVersion(db, 'ip_blocks');
  const cached = parsed.get(db);
  if (cached && cached.version === version) return cached;
  const rules = allIpBlocks(db).flatMap((row) => {
    const range = parseIpRange(row.ip);
    return range ? [{ range, severity: row.severity, expiresAt: row.expires_at }] : [];
  });
  const fresh = { version, rules };
  if (!db.raw.inTransaction) parsed.set(db, fresh);
  return fresh;
}

/** Whether an address is on loopback (127.0.0.0/8, ::1), which IP blocks never match. */
function isLoopback(address: { family: 4 | 6; value: bigint }): boolean {
  return address.family === 4 ? address.value >> 24n === 127n : address.value === 1n;
}

/** The severities of the blocks in force that cover an address (none for loopback or no address). */
export function ipBlockSeverities(deps: Deps, address: string | null): Set<IpBlockSeverity> {
  const out = new Set<IpBlockSeverity>();
  if (address === null) return out;
  // Apps on this machine (most requests) cost no read at all.
  const parsedAddress = parseAddress(address);
  if (!parsedAddress || isLoopback(parsedAddress)) return out;
  const { rules } = currentIpRules(deps.db);
  const at = now();
  for (const r of rules) if ((r.expiresAt === null || r.expiresAt > at) && rangeContains(r.range, parsedAddress)) out.add(r.severity);
  return out;
}

/** Whether every request from an address is refused (a `no_access` block covers it). */
export function ipHasNoAccess(deps: Deps, address: string | null): boolean {
  return ipBlockSeverities(deps, address).has('no_access');
}
