import { createHash } from 'node:crypto';
import { domainToASCII } from 'node:url';
import type { PageBounds } from '../../db/paging.js';
import {
  canonicalEmailBlocksByHash,
  countEmailBlockAttempt,
  deleteCanonicalEmailBlock as deleteCanonicalRow,
  deleteEmailDomainBlock as deleteDomainRow,
  emailBlockDays,
  emailDomainBlocksFor,
  findCanonicalEmailBlock,
  findEmailDomainBlock,
  insertCanonicalEmailBlock,
  insertEmailDomainBlock,
  pageCanonicalEmailBlocks,
  pageEmailDomainBlocks,
  pruneEmailBlockAttempts,
  type CanonicalEmailBlockRow,
  type EmailDomainBlockRow,
} from '../../db/repos/email-blocks.js';
import {
  toMastodonAdminCanonicalEmailBlock,
  toMastodonAdminEmailDomainBlock,
  type AdminCanonicalEmailBlock,
  type AdminEmailDomainBlock,
} from '../../serializers/admin-email-block.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';

/**
 * E-mail domain blocks and canonical e-mail blocks (`/api/v1/admin/email_domain_blocks` and
 * `/api/v1/admin/canonical_email_blocks`), and what sign-up asks of them. Callers check
 * manage_blocks first. Mastodon also refuses domains whose MX records point at a blocked domain;
 * Hearth looks up no DNS (an instance on a laptop may be offline), so only the address's own domain
 * and its parent domains are matched.
 */

const DAY_SECONDS = 86_400;
const HISTORY_DAYS = 7;

/** Midnight UTC of the day `ms` falls in, in seconds. */
function dayOf(ms: number): number {
  return Math.floor(ms / 1000 / DAY_SECONDS) * DAY_SECONDS;
}

/** The days an entity's history shows: today first, then the six before. */
function historyDays(): number[] {
  const today = dayOf(now());
  return Array.from({ length: HISTORY_DAYS }, (_, i) => today - i * DAY_SECONDS);
}

function presentEmailDomainBlocks(deps: Deps, rows: readonly EmailDomainBlockRow[]): AdminEmailDomainBlock[] {
  const days = historyDays();
  const counts = new Map<string, Map<number, { uses: number; accounts: number }>>();
  for (const r of emailBlockDays(deps.db, rows.map((b) => b.id), days[days.length - 1] ?? 0)) {
    let byDay = counts.get(r.block_id);
    if (!byDay) counts.set(r.block_id, (byDay = new Map()));
    byDay.set(r.day, { uses: r.uses, accounts: r.accounts });
  }
  return rows.map((row) => toMastodonAdminEmailDomainBlock(row, days, counts.get(row.id) ?? new Map()));
}

/** The domain of an address, or a bare domain, as lower-case ASCII; null when it is no domain. */
function emailDomainOf(value: string): string | null {
  const at = value.indexOf('@');
  const raw = (at === -1 ? value : value.slice(at + 1)).trim().toLowerCase().replace(/\.$/, '');
  if (raw === '') return null;
  const ascii = domainToASCII(raw);
  return ascii && /^[a-z0-9.-]+$/.test(ascii) && !ascii.startsWith('.') && !ascii.includes('..') ? ascii : null;
}

/** A domain and each of its parents (`a.b.example` → `a.b.example`, `b.example`, `example`). */
function withParents(domain: string): string[] {
  const parts = domain.split('.');
  return parts.map((_, i) => parts.slice(i).join('.'));
}

/** One page of e-mail domain blocks, newest first. */
export function listEmailDomainBlocks(deps: Deps, page: PageBounds): AdminEmailDomainBlock[] {
  return presentEmailDomainBlocks(deps, pageEmailDomainBlocks(deps.db, page));
}

function loadEmailDomainBlock(deps: Deps, id: string): EmailDomainBlockRow {
  const row = findEmailDomainBlock(deps.db, id);
  if (!row) throw notFound();
  return row;
}

/** One e-mail domain block with its history, or 404. */
export function showEmailDomainBlock(deps: Deps, id: string): AdminEmailDomainBlock {
  return presentEmailDomainBlocks(deps, [loadEmailDomainBlock(deps, id)])[0] as AdminEmailDomainBlock;
}

/**
 * Blocks an e-mail domain (and its subdomains) at sign-up: 422 when the domain is blank, invalid
 * or already blocked, in Mastodon's words.
 */
export function createEmailDomainBlock(deps: Deps, input: string | undefined): AdminEmailDomainBlock {
  if (input === undefined || input.trim() === '') throw unprocessable("Domain can't be blank");
  const domain = input.includes('@') ? null : emailDomainOf(input);
  if (domain === null || domain.length > 253 || !domain.split('.').every((l) => /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/.test(l))) {
    throw unprocessable('Domain is invalid, Domain is not a valid domain name');
  }
  const at = now();
  const row: EmailDomainBlockRow = { id: newId(at), domain, created_at: at };
  deps.db.transaction(() => {
    if (emailDomainBlocksFor(deps.db, [domain]).length > 0) throw unprocessable('Domain has already been taken');
    insertEmailDomainBlock(deps.db, row);
  });
  return presentEmailDomainBlocks(deps, [row])[0] as AdminEmailDomainBlock;
}

/** Lifts an e-mail domain block (404 when unknown). */
export function deleteEmailDomainBlock(deps: Deps, id: string): void {
  loadEmailDomainBlock(deps, id);
  if (!deps.db.transaction(() => deleteDomainRow(deps.db, id))) throw notFound();
}

/**
 * Mastodon's canonical form of an address: lower case, and in the part before the first `@`, no
 * dots and nothing from the first `+` on (`J.Doe+news@Example.com` → `jdoe@example.com`).
 */
export function canonicalEmail(email: string): string {
  const lower = email.trim().toLowerCase();
  const at = lower.indexOf('@');
  const local = (at === -1 ? lower : lower.slice(0, at)).replaceAll('.', '');
  const domain = at === -1 ? '' : lower.slice(at + 1);
  return `${local.split('+')[0] ?? ''}@${domain}`;
}

/** SHA-256 (hex) of an address's canonical form: what canonical e-mail blocks store. */
export function canonicalEmailHash(email: string): string {
  return createHash('sha256').update(canonicalEmail(email)).digest('hex');
}

/** One page of canonical e-mail blocks, newest first. */
export function listCanonicalEmailBlocks(deps: Deps, page: PageBounds): AdminCanonicalEmailBlock[] {
  return pageCanonicalEmailBlocks(deps.db, page).map(toMastodonAdminCanonicalEmailBlock);
}

function loadCanonicalEmailBlock(deps: Deps, id: string): CanonicalEmailBlockRow {
  const row = findCanonicalEmailBlock(deps.db, id);
  if (!row) throw notFound();
  return row;
}

/** One canonical e-mail block, or 404. */
export function showCanonicalEmailBlock(deps: Deps, id: string): AdminCanonicalEmailBlock {
  return toMastodonAdminCanonicalEmailBlock(loadCanonicalEmailBlock(deps, id));
}

/**
 * Blocks an address whatever its dots and +tags: by `email` (canonicalized and hashed; it wins
 * when both are given) or by a `canonical_email_hash` computed elsewhere. 422 when neither is
 * given or the hash is blocked already, in Mastodon's words.
 */
export function createCanonicalEmailBlock(deps: Deps, input: { email?: string | undefined; canonical_email_hash?: string | undefined }): AdminCanonicalEmailBlock {
  const hash = input.email?.trim() ? canonicalEmailHash(input.email) : (input.canonical_email_hash?.trim().toLowerCase() ?? '');
  if (hash === '') throw unprocessable("Canonical email hash can't be blank");
  const at = now();
  const row: CanonicalEmailBlockRow = { id: newId(at), canonical_email_hash: hash, reference_account_id: null, created_at: at };
  deps.db.transaction(() => {
    if (canonicalEmailBlocksByHash(deps.db, hash).length > 0) throw unprocessable('Canonical email hash has already been taken');
    insertCanonicalEmailBlock(deps.db, row);
  });
  return toMastodonAdminCanonicalEmailBlock(row);
}

/** The canonical e-mail blocks that match an address (`POST …/canonical_email_blocks/test`). */
export function testCanonicalEmailBlocks(deps: Deps, email: string): AdminCanonicalEmailBlock[] {
  return canonicalEmailBlocksByHash(deps.db, canonicalEmailHash(email)).map(toMastodonAdminCanonicalEmailBlock);
}

/** Lifts a canonical e-mail block (404 when unknown). */
export function deleteCanonicalEmailBlock(deps: Deps, id: string): void {
  loadCanonicalEmailBlock(deps, id);
  if (!deps.db.transaction(() => deleteCanonicalRow(deps.db, id))) throw notFound();
}

/** What the e-mail blocks say of a sign-up's address. */
export interface EmailVerdict {
  /** An e-mail domain block covers the address's domain. */
  domainBlocked: boolean;
  /** A canonical e-mail block matches the address. */
  canonicalBlocked: boolean;
}

/**
 * Judges a sign-up's address against the e-mail blocks. Each e-mail domain block that refuses it
 * counts the attempt (with the address it came from) in its history, in its own commit: the
 * attempt happened whatever becomes of the sign-up.
 */
export function judgeSignUpEmail(deps: Deps, email: string, ip: string | null): EmailVerdict {
  const domain = emailDomainOf(email);
  const blocks = domain ? emailDomainBlocksFor(deps.db, withParents(domain)) : [];
  if (blocks.length > 0) {
    const day = dayOf(now());
    deps.db.transaction(() => {
      for (const b of blocks) countEmailBlockAttempt(deps.db, b.id, day, ip ?? '');
      pruneEmailBlockAttempts(deps.db, day - (HISTORY_DAYS - 1) * DAY_SECONDS);
    });
  }
  return { domainBlocked: blocks.length > 0, canonicalBlocked: canonicalEmailBlocksByHash(deps.db, canonicalEmailHash(email)).length > 0 };
}
