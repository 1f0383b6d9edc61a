import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/**
 * User-level blocks (`blocks`) and domain blocks (`account_domain_blocks`): named queries. The
 * conditions that hide blocked accounts from timelines and notifications live in core
 * (core/relationships/exclusions.ts).
 */

/** A row of `blocks`: `account_id` blocks `target_account_id`. */
export interface BlockRow {
  id: string;
  account_id: string;
  target_account_id: string;
  created_at: number;
}

/** A row of `account_domain_blocks`. */
export interface DomainBlockRow {
  id: string;
  account_id: string;
  domain: string;
  created_at: number;
}

const IDS = 'IN (SELECT CAST(value AS INTEGER) FROM json_each(@ids))';

/** The block of `accountId` on `targetAccountId`, if any. */
export function findBlock(db: Db, accountId: string, targetAccountId: string): BlockRow | undefined {
  return db
    .query<BlockRow>('SELECT * FROM blocks WHERE account_id = @account_id AND target_account_id = @target_account_id')
    .get({ account_id: accountId, target_account_id: targetAccountId });
}

/** True when either account blocks the other. */
export function blockedEitherWay(db: Db, a: string, b: string): boolean {
  return (
    db
      .query(
        `SELECT 1 FROM blocks WHERE (account_id = @a_id AND target_account_id = @b_id)
         OR (account_id = @b_id AND target_account_id = @a_id) LIMIT 1`,
      )
      .get({ a_id: a, b_id: b }) !== undefined
  );
}

/** Inserts a block row. */
export function insertBlock(db: Db, row: BlockRow): void {
  db.query('INSERT INTO blocks (id, account_id, target_account_id, created_at) VALUES (@id, @account_id, @target_account_id, @created_at)').run({
    ...row,
  });
}

/** Deletes a block; returns how many rows went (0 or 1). */
export function deleteBlock(db: Db, accountId: string, targetAccountId: string): number {
  return db
    .query('DELETE FROM blocks WHERE account_id = @account_id AND target_account_id = @target_account_id')
    .run({ account_id: accountId, target_account_id: targetAccountId }).changes;
}

/** Which of `ids` the account blocks. */
export function blockedAmong(db: Db, accountId: string, ids: readonly string[]): Set<string> {
  const rows = db
    .query<{ target_account_id: string }>(`SELECT target_account_id FROM blocks WHERE account_id = @account_id AND target_account_id ${IDS}`)
    .all({ account_id: accountId, ids: JSON.stringify(ids) });
  return new Set(rows.map((r) => r.target_account_id));
}

/** Which of `ids` block the account. */
export function blockersAmong(db: Db, accountId: string, ids: readonly string[]): Set<string> {
  const rows = db
    .query<{ account_id: string }>(`SELECT account_id FROM blocks WHERE target_account_id = @target_account_id AND account_id ${IDS}`)
    .all({ target_account_id: accountId, ids: JSON.stringify(ids) });
  return new Set(rows.map((r) => r.account_id));
}

/** A page of the accounts an account blocks, newest block first, as (block id, account id). */
export function blockListPage(db: Db, accountId: string, page: PageBounds): { block_id: string; account_id: string }[] {
  const p = pageSql('b.id', page);
  const rows = db
    .query<{ block_id: string; account_id: string }>(
      `SELECT b.id AS block_id, b.target_account_id AS account_id FROM blocks b
       WHERE b.account_id = @account_id ${p.where} ${p.orderLimit}`,
    )
    .all({ account_id: accountId, ...p.params });
  return p.reverse ? rows.reverse() : rows;
}

/** Deletes the notifications `recipientId` got from `fromAccountId` (a block clears them, as Mastodon does). */
export function deleteNotificationsBetween(db: Db, recipientId: string, fromAccountId: string): void {
  db.query('DELETE FROM notifications WHERE account_id = @account_id AND from_account_id = @from_account_id').run({
    account_id: recipientId,
    from_account_id: fromAccountId,
  });
}

/** The domain block of an account on `domain`, if any. */
export function findDomainBlock(db: Db, accountId: string, domain: string): DomainBlockRow | undefined {
  return db
    .query<DomainBlockRow>('SELECT * FROM account_domain_blocks WHERE account_id = @account_id AND domain = @domain')
    .get({ account_id: accountId, domain });
}

/** Inserts a domain block row. */
export function insertDomainBlock(db: Db, row: DomainBlockRow): void {
  db.query('INSERT INTO account_domain_blocks (id, account_id, domain, created_at) VALUES (@id, @account_id, @domain, @created_at)').run({ ...row });
}

/** Deletes a domain block; returns how many rows went. */
export function deleteDomainBlock(db: Db, accountId: string, domain: string): number {
  return db.query('DELETE FROM account_domain_blocks WHERE account_id = @account_id AND domain = @domain').run({ account_id: accountId, domain }).changes;
}

/** The domains, among those given, that the account blocks. */
export function blockedDomainsAmong(db: Db, accountId: string, domains: readonly string[]): Set<string> {
  if (domains.length === 0) return new Set();
  const rows = db
    .query<{ domain: string }>('SELECT domain FROM account_domain_blocks WHERE account_id = @account_id AND domain IN (SELECT value FROM json_each(@domains))')
    .all({ account_id: accountId, domains: JSON.stringify([...new Set(domains)]) });
  return new Set(rows.map((r) => r.domain));
}

/** A page of an account's blocked domains, newest first, with the block ids that page them. */
export function domainBlockPage(db: Db, accountId: string, page: PageBounds): DomainBlockRow[] {
  const p = pageSql('id', page);
  const rows = db.query<DomainBlockRow>(`SELECT * FROM account_domain_blocks WHERE account_id = @account_id ${p.where} ${p.orderLimit}`).all({
    account_id: accountId,
    ...p.params,
  });
  return p.reverse ? rows.reverse() : rows;
}

/** One side of a follow between an account and the accounts of a domain (for a domain block). */
export interface DomainFollowRow {
  id: string;
  account_id: string;
  target_account_id: string;
}

/**
 * The follows from the accounts of `domain` to `accountId` (followers = true) or from `accountId`
 * to them, and the same for pending requests (`table`).
 */
export function followsWithDomain(db: Db, table: 'follows' | 'follow_requests', accountId: string, domain: string, followers: boolean): DomainFollowRow[] {
  const [mine, other] = followers ? ['target_account_id', 'account_id'] : ['account_id', 'target_account_id'];
  return db
    .query<DomainFollowRow>(
      `SELECT f.id, f.account_id, f.target_account_id FROM ${table} f JOIN accounts a ON a.id = f.${other}
       WHERE f.${mine} = @account_id AND a.domain = @domain`,
    )
    .all({ account_id: accountId, domain });
}

/** Local accounts that block `targetAccountId` (a moved account's blockers). */
export function localBlockerIdsOf(db: Db, targetAccountId: string): string[] {
  return db
    .query<{ account_id: string }>('SELECT b.account_id FROM blocks b JOIN accounts a ON a.id = b.account_id WHERE b.target_account_id = @target_account_id AND a.domain IS NULL')
    .all({ target_account_id: targetAccountId })
    .map((r) => r.account_id);
}
