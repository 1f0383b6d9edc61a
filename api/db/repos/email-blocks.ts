import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** A row of `email_domain_blocks`. */
export interface EmailDomainBlockRow {
  id: string;
  domain: string;
  created_at: number;
}

/** A row of `canonical_email_blocks`. */
export interface CanonicalEmailBlockRow {
  id: string;
  canonical_email_hash: string;
  reference_account_id: string | null;
  created_at: number;
}

/** One day of a block's refused sign-ups: attempts, and the distinct addresses they came from. */
export interface EmailBlockDayRow {
  block_id: string;
  day: number;
  uses: number;
  accounts: number;
}

/** One page of e-mail domain blocks, newest first. */
export function pageEmailDomainBlocks(db: Db, page: PageBounds): EmailDomainBlockRow[] {
  const p = pageSql('id', page);
  const rows = db.query<EmailDomainBlockRow>(`SELECT * FROM email_domain_blocks WHERE 1 ${p.where} ${p.orderLimit}`).all(p.params);
  return p.reverse ? rows.reverse() : rows;
}

/** An e-mail domain block by id. */
export function findEmailDomainBlock(db: Db, id: string): EmailDomainBlockRow | undefined {
  return db.query<EmailDomainBlockRow>('SELECT * FROM email_domain_blocks WHERE id = @id').get({ id });
}

/** The e-mail domain blocks of any of these exact domains. */
export function emailDomainBlocksFor(db: Db, domains: readonly string[]): EmailDomainBlockRow[] {
  if (domains.length === 0) return [];
  return db.query<EmailDomainBlockRow>('SELECT * FROM email_domain_blocks WHERE domain IN (SELECT value FROM json_each(@domains))').all({ domains: JSON.stringify(domains) });
}

/** Inserts an e-mail domain block. */
export function insertEmailDomainBlock(db: Db, row: EmailDomainBlockRow): void {
  db.query('INSERT INTO email_domain_blocks (id, domain, created_at) VALUES (@id, @domain, @created_at)').run({ ...row });
}

/** Deletes an e-mail domain block (with its history); whether it existed. */
export function deleteEmailDomainBlock(db: Db, id: string): boolean {
  return db.query('DELETE FROM email_domain_blocks WHERE id = @id').run({ id }).changes > 0;
}

/** Counts one refused sign-up against a block, on a day (midnight UTC, in seconds), from an address. */
export function countEmailBlockAttempt(db: Db, blockId: string, day: number, ip: string): void {
  db.query(
    `INSERT INTO email_domain_block_attempts (block_id, day, ip, attempts) VALUES (@block_id, @day, @ip, 1)
     ON CONFLICT (block_id, day, ip) DO UPDATE SET attempts = attempts + 1`,
  ).run({ block_id: blockId, day, ip });
}

/** Forgets the attempts of days before `day` (only the last week is shown). */
export function pruneEmailBlockAttempts(db: Db, day: number): void {
  db.query('DELETE FROM email_domain_block_attempts WHERE day < @day').run({ day });
}

/** Per block and day since `sinceDay`: refused attempts and distinct addresses. */
export function emailBlockDays(db: Db, blockIds: readonly string[], sinceDay: number): EmailBlockDayRow[] {
  if (blockIds.length === 0) return [];
  return db
    .query<EmailBlockDayRow>(
      `SELECT block_id, day, SUM(attempts) AS uses, COUNT(*) AS accounts FROM email_domain_block_attempts
        WHERE block_id IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids)) AND day >= @since
        GROUP BY block_id, day`,
    )
    .all({ ids: JSON.stringify(blockIds), since: sinceDay });
}

/** One page of canonical e-mail blocks, newest first. */
export function pageCanonicalEmailBlocks(db: Db, page: PageBounds): CanonicalEmailBlockRow[] {
  const p = pageSql('id', page);
  const rows = db.query<CanonicalEmailBlockRow>(`SELECT * FROM canonical_email_blocks WHERE 1 ${p.where} ${p.orderLimit}`).all(p.params);
  return p.reverse ? rows.reverse() : rows;
}

/** A canonical e-mail block by id. */
export function findCanonicalEmailBlock(db: Db, id: string): CanonicalEmailBlockRow | undefined {
  return db.query<CanonicalEmailBlockRow>('SELECT * FROM canonical_email_blocks WHERE id = @id').get({ id });
}

/** The canonical e-mail blocks of a hash (at most one). */
export function canonicalEmailBlocksByHash(db: Db, hash: string): CanonicalEmailBlockRow[] {
  return db.query<CanonicalEmailBlockRow>('SELECT * FROM canonical_email_blocks WHERE canonical_email_hash = @hash').all({ hash });
}

/** Inserts a canonical e-mail block. */
export function insertCanonicalEmailBlock(db: Db, row: CanonicalEmailBlockRow): void {
  db.query(
    `INSERT INTO canonical_email_blocks (id, canonical_email_hash, reference_account_id, created_at)
     VALUES (@id, @canonical_email_hash, @reference_account_id, @created_at)`,
  ).run({ ...row });
}

/** Deletes a canonical e-mail block; whether it existed. */
export function deleteCanonicalEmailBlock(db: Db, id: string): boolean {
  return db.query('DELETE FROM canonical_email_blocks WHERE id = @id').run({ id }).changes > 0;
}
