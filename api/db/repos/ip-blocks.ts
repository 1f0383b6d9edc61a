import type { Db } from '../connection.js';
import { pageSql, type PageBounds } from '../paging.js';

/** What an IP block does (Mastodon's IpBlock severities). */
export type IpBlockSeverity = 'sign_up_requires_approval' | 'sign_up_block' | 'no_access';

/** A row of `ip_blocks`. */
export interface IpBlockRow {
  id: string;
  /** The network in CIDR form, masked to its prefix. */
  ip: string;
  severity: IpBlockSeverity;
  comment: string;
  expires_at: number | null;
  created_at: number;
  updated_at: number;
}

const LIVE = '(expires_at IS NULL OR expires_at > @at)';

/** One page of the IP blocks in force at `at`, newest first. */
export function pageIpBlocks(db: Db, page: PageBounds, at: number): IpBlockRow[] {
  const p = pageSql('id', page);
  const rows = db.query<IpBlockRow>(`SELECT * FROM ip_blocks WHERE ${LIVE} ${p.where} ${p.orderLimit}`).all({ ...p.params, at });
  return p.reverse ? rows.reverse() : rows;
}

/** Every IP block, expired ones included (the caller judges expiry against its clock). */
export function allIpBlocks(db: Db): IpBlockRow[] {
  return db.query<IpBlockRow>('SELECT * FROM ip_blocks ORDER BY id').all();
}

/** An IP block in force at `at`, by id. */
export function findIpBlock(db: Db, id: string, at: number): IpBlockRow | undefined {
  return db.query<IpBlockRow>(`SELECT * FROM ip_blocks WHERE id = @id AND ${LIVE}`).get({ id, at });
}

/** The block of exactly this network (expired or not), if any. */
export function findIpBlockByIp(db: Db, ip: string): IpBlockRow | undefined {
  return db.query<IpBlockRow>('SELECT * FROM ip_blocks WHERE ip = @ip').get({ ip });
}

/** Deletes the blocks that expired by `at` (they no longer apply; their network may be blocked anew). */
export function deleteExpiredIpBlocks(db: Db, at: number): void {
  db.query('DELETE FROM ip_blocks WHERE expires_at IS NOT NULL AND expires_at <= @at').run({ at });
}

/** Inserts an IP block. */
export function insertIpBlock(db: Db, row: IpBlockRow): void {
  db.query(
    `INSERT INTO ip_blocks (id, ip, severity, comment, expires_at, created_at, updated_at)
     VALUES (@id, @ip, @severity, @comment, @expires_at, @created_at, @updated_at)`,
  ).run({ ...row });
}

/** Writes an IP block's changeable columns. */
export function updateIpBlock(db: Db, row: IpBlockRow): void {
  db.query('UPDATE ip_blocks SET ip = @ip, severity = @severity, comment = @comment, expires_at = @expires_at, updated_at = @updated_at WHERE id = @id').run({ ...row });
}

/** Deletes an IP block; whether it existed. */
export function deleteIpBlock(db: Db, id: string): boolean {
  return db.query('DELETE FROM ip_blocks WHERE id = @id').run({ id }).changes > 0;
}
