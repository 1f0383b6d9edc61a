import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** What a domain block does besides its flags (Mastodon's DomainBlock severities). */
export type DomainBlockSeverity = 'silence' | 'suspend' | 'noop';

/** A row of `instance_domain_blocks`. */
export interface DomainBlockRow {
  id: string;
  domain: string;
  severity: DomainBlockSeverity;
  reject_media: number;
  reject_reports: number;
  private_comment: string | null;
  public_comment: string | null;
  obfuscate: number;
  created_at: number;
  updated_at: number;
}

/** A row of `instance_domain_allows`. */
export interface DomainAllowRow {
  id: string;
  domain: string;
  created_at: number;
}

/** The named rule sets whose writes move a version counter (see migration 0093). */
export type RuleSet = 'domains' | 'ip_blocks';

/** The version of a rule set: it moves with every write to its tables, from any connection. */
export function ruleSetVersion(db: Db, name: RuleSet): number {
  return db.query<{ version: number }>('SELECT version FROM moderation_rule_versions WHERE name = @name').get({ name })?.version ?? 0;
}

/** Every domain block, oldest first. */
export function allDomainBlocks(db: Db): DomainBlockRow[] {
  return db.query<DomainBlockRow>('SELECT * FROM instance_domain_blocks ORDER BY id').all();
}

/** Every allowed domain, oldest first. */
export function allDomainAllows(db: Db): DomainAllowRow[] {
  return db.query<DomainAllowRow>('SELECT * FROM instance_domain_allows ORDER BY id').all();
}

/** One page of domain blocks, newest first (the caller reverses a `min_id` page). */
export function pageDomainBlocks(db: Db, page: PageBounds): DomainBlockRow[] {
  const p = pageSql('id', page);
  const rows = db.query<DomainBlockRow>(`SELECT * FROM instance_domain_blocks WHERE 1 ${p.where} ${p.orderLimit}`).all(p.params);
  return p.reverse ? rows.reverse() : rows;
}

/** One page of allowed domains, newest first. */
export function pageDomainAllows(db: Db, page: PageBounds): DomainAllowRow[] {
  const p = pageSql('id', page);
  const rows = db.query<DomainAllowRow>(`SELECT * FROM instance_domain_allows WHERE 1 ${p.where} ${p.orderLimit}`).all(p.params);
  return p.reverse ? rows.reverse() : rows;
}

/** A domain block by id. */
export function findDomainBlock(db: Db, id: string): DomainBlockRow | undefined {
  return db.query<DomainBlockRow>('SELECT * FROM instance_domain_blocks WHERE id = @id').get({ id });
}

/** The blocks of any of these exact domains. */
export function domainBlocksFor(db: Db, domains: readonly string[]): DomainBlockRow[] {
  if (domains.length === 0) return [];
  return db.query<DomainBlockRow>('SELECT * FROM instance_domain_blocks WHERE domain IN (SELECT value FROM json_each(@domains))').all({ domains: JSON.stringify(domains) });
}

/** A domain allow by id. */
export function findDomainAllow(db: Db, id: string): DomainAllowRow | undefined {
  return db.query<DomainAllowRow>('SELECT * FROM instance_domain_allows WHERE id = @id').get({ id });
}

/** The allow of exactly this domain. */
export function findDomainAllowByDomain(db: Db, domain: string): DomainAllowRow | undefined {
  return db.query<DomainAllowRow>('SELECT * FROM instance_domain_allows WHERE domain = @domain').get({ domain });
}

/** Inserts a domain block. */
export function insertDomainBlock(db: Db, row: DomainBlockRow): void {
  db.query(
    `INSERT INTO instance_domain_blocks (id, domain, severity, reject_media, reject_reports, private_comment, public_comment, obfuscate, created_at, updated_at)
     VALUES (@id, @domain, @severity, @reject_media, @reject_reports, @private_comment, @public_comment, @obfuscate, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Writes a domain block's changeable columns (everything but its domain and creation time). */
export function updateDomainBlock(db: Db, row: DomainBlockRow): void {
  db.query(
    `UPDATE instance_domain_blocks SET severity = @severity, reject_media = @reject_media, reject_reports = @reject_reports,
       private_comment = @private_comment, public_comment = @public_comment, obfuscate = @obfuscate, updated_at = @updated_at
     WHERE id = @id`,
  ).run({ ...row });
}

/** Deletes a domain block; returns whether it existed. */
export function deleteDomainBlock(db: Db, id: string): boolean {
  return db.query('DELETE FROM instance_domain_blocks WHERE id = @id').run({ id }).changes > 0;
}

/** Inserts an allowed domain. */
export function insertDomainAllow(db: Db, row: DomainAllowRow): void {
  db.query('INSERT INTO instance_domain_allows (id, domain, created_at) VALUES (@id, @domain, @created_at)').run({ ...row });
}

/** Deletes an allowed domain; returns whether it existed. */
export function deleteDomainAllow(db: Db, id: string): boolean {
  return db.query('DELETE FROM instance_domain_allows WHERE id = @id').run({ id }).changes > 0;
}

/** The distinct domains of known remote accounts. */
export function remoteAccountDomains(db: Db): string[] {
  return db
    .query<{ domain: string }>('SELECT DISTINCT domain FROM accounts WHERE domain IS NOT NULL')
    .all()
    .map((r) => r.domain);
}

/**
 * Sets a moderation time (`silenced_at` or `suspended_at`) on the accounts of these domains that
 * have none; returns how many changed.
 */
export function markDomainAccounts(db: Db, column: 'silenced_at' | 'suspended_at', domains: readonly string[], at: number): number {
  if (domains.length === 0) return 0;
  return db
    .query(`UPDATE accounts SET ${column} = @at WHERE domain IN (SELECT value FROM json_each(@domains)) AND ${column} IS NULL`)
    .run({ at, domains: JSON.stringify(domains) }).changes;
}

/**
 * Clears a moderation time on the accounts of these domains that got it from a domain block made
 * at `at` (the time it set), leaving those a moderator acted on separately; returns how many changed.
 */
export function unmarkDomainAccounts(db: Db, column: 'silenced_at' | 'suspended_at', domains: readonly string[], at: number): number {
  if (domains.length === 0) return 0;
  return db
    .query(`UPDATE accounts SET ${column} = NULL WHERE domain IN (SELECT value FROM json_each(@domains)) AND ${column} = @at`)
    .run({ at, domains: JSON.stringify(domains) }).changes;
}

/** The domain a remote media record belongs to: its account's, or its emoji's; null when unknown. */
export function remoteMediaOwnerDomain(db: Db, kind: 'attachment' | 'avatar' | 'header' | 'emoji', id: string): string | null {
  const sql =
    kind === 'attachment'
      ? 'SELECT a.domain FROM media_attachments m JOIN accounts a ON a.id = m.account_id WHERE m.id = @id'
      : kind === 'emoji'
        ? 'SELECT domain FROM custom_emojis WHERE id = @id'
        : 'SELECT domain FROM accounts WHERE id = @id';
  return db.query<{ domain: string | null }>(sql).get({ id })?.domain ?? null;
}
