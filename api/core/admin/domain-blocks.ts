import type { PageBounds } from '../../db/paging.js';
import { domainBlocksFor, findDomainBlock, pageDomainBlocks, type DomainBlockRow, type DomainBlockSeverity } from '../../db/repos/domain-rules.js';
import { toMastodonAdminDomainBlock, type AdminDomainBlock } from '../../serializers/admin-domain-block.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound, unprocessable } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import {
  deleteInstanceDomainBlock,
  domainVariants,
  insertInstanceDomainBlock,
  newDomainBlockRow,
  normalizeInstanceDomain,
  updateInstanceDomainBlock,
} from '../federation/instance-domains.js';

/**
 * The admin API's domain blocks (`/api/v1/admin/domain_blocks`), over the instance's one rule set
 * (core/federation/instance-domains.ts, which applies them). Callers check the caller's
 * permission (manage_federation) first.
 */

const SEVERITIES: readonly DomainBlockSeverity[] = ['silence', 'suspend', 'noop'];

/** What a client may set on a block (the form or JSON parameters, typed). */
export interface DomainBlockParams {
  domain?: string | undefined;
  severity?: string | undefined;
  reject_media?: boolean | undefined;
  reject_reports?: boolean | undefined;
  private_comment?: string | undefined;
  public_comment?: string | undefined;
  obfuscate?: boolean | undefined;
}

/**
 * A domain as the admin API takes it (Mastodon's DomainValidator): 422 "can't be blank" or "is not
 * a valid domain name"; otherwise lower-case ASCII, with a port when one is named.
 */
export function adminDomainParam(input: string | undefined): string {
  if (input === undefined || input.trim() === '') throw unprocessable("Domain can't be blank");
  let domain: string;
  try {
    domain = normalizeInstanceDomain(input);
  } catch {
    throw unprocessable('Domain is not a valid domain name');
  }
  // Each label: letters, digits and inner hyphens, at most 63 characters; 253 in all.
  const bare = domain.replace(/:\d+$/, '');
  if (bare.length > 253 || !bare.split('.').every((label) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(label))) {
    throw unprocessable('Domain is not a valid domain name');
  }
  return domain;
}

function severityParam(value: string | undefined, fallback: DomainBlockSeverity): DomainBlockSeverity {
  if (value === undefined || value === '') return fallback;
  if (!(SEVERITIES as readonly string[]).includes(value)) throw unprocessable('Severity is not included in the list');
  return value as DomainBlockSeverity;
}

const flag = (value: boolean | undefined, fallback: number) => (value === undefined ? fallback : value ? 1 : 0);

/** The block's settings with the given parameters applied over `base`. */
function withParams(base: DomainBlockRow, p: DomainBlockParams): DomainBlockRow {
  return {
    ...base,
    severity: severityParam(p.severity, base.severity),
    reject_media: flag(p.reject_media, base.reject_media),
    reject_reports: flag(p.reject_reports, base.reject_reports),
    private_comment: p.private_comment ?? base.private_comment,
    public_comment: p.public_comment ?? base.public_comment,
    obfuscate: flag(p.obfuscate, base.obfuscate),
  };
}

/**
 * Whether a block is stricter than another (Mastodon's `stricter_than?`): a suspension always is;
 * nothing milder is stricter than a suspension, nor a noop than a silence; otherwise it must
 * reject at least what the other rejects.
 */
export function stricterThan(block: Pick<DomainBlockRow, 'severity' | 'reject_media' | 'reject_reports'>, other: DomainBlockRow): boolean {
  if (block.severity === 'suspend') return true;
  if (other.severity === 'suspend') return false;
  if (other.severity === 'silence' && block.severity === 'noop') return false;
  return (block.reject_media === 1 || other.reject_media === 0) && (block.reject_reports === 1 || other.reject_reports === 0);
}

/** The block that already rules a domain: its own, or else the most specific of a parent domain. */
function ruleFor(deps: Deps, domain: string): DomainBlockRow | undefined {
  const variants = domainVariants(domain);
  const rows = domainBlocksFor(deps.db, variants);
  return variants.map((v) => rows.find((r) => r.domain === v)).find((r) => r !== undefined);
}

/** One page of domain blocks, newest first. */
export function listDomainBlocks(deps: Deps, page: PageBounds): AdminDomainBlock[] {
  return pageDomainBlocks(deps.db, page).map(toMastodonAdminDomainBlock);
}

function loadBlock(deps: Deps, id: string): DomainBlockRow {
  const row = findDomainBlock(deps.db, id);
  if (!row) throw notFound();
  return row;
}

/** One domain block, or 404. */
export function showDomainBlock(deps: Deps, id: string): AdminDomainBlock {
  return toMastodonAdminDomainBlock(loadBlock(deps, id));
}

/**
 * Blocks a domain, as Mastodon's admin API does: the domain is required and must be valid (422);
 * severity defaults to silence. A block of the same domain, or of a parent domain that this one
 * would not be stricter than, is a conflict: 422 "You have already imposed stricter limits on …"
 * with the `existing_domain_block`. Then the block is written and applied to the domain's known
 * accounts (suspended or limited) in one transaction.
 */
export function createDomainBlock(deps: Deps, params: DomainBlockParams): AdminDomainBlock {
  const domain = adminDomainParam(params.domain);
  const row = withParams(newDomainBlockRow(domain), params);
  const existing = ruleFor(deps, domain);
  if (existing && (existing.domain === domain || !stricterThan(row, existing))) {
    throw new ApiError(422, `You have already imposed stricter limits on ${existing.domain}.`, {
      extra: { existing_domain_block: toMastodonAdminDomainBlock(existing) },
    });
  }
  insertInstanceDomainBlock(deps, row);
  return toMastodonAdminDomainBlock(row);
}

/**
 * Changes a block's severity, flags and comments (its domain stays; 422 for an unknown severity);
 * what the old severity did to the domain's accounts is lifted and the new one applied.
 */
export function updateDomainBlock(deps: Deps, id: string, params: DomainBlockParams): AdminDomainBlock {
  const before = loadBlock(deps, id);
  const after = { ...withParams(before, params), updated_at: now() };
  updateInstanceDomainBlock(deps, before, after);
  return toMastodonAdminDomainBlock(after);
}

/** Lifts a block (404 when unknown), and what it did to the domain's accounts. */
export function deleteDomainBlock(deps: Deps, id: string): void {
  if (!deleteInstanceDomainBlock(deps, loadBlock(deps, id))) throw notFound();
}
