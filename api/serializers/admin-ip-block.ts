import type { IpBlockRow, IpBlockSeverity } from '../db/repos/ip-blocks.js';
import { isoTime } from '../util/clock.js';

/** Mastodon's Admin::IpBlock entity. */
export interface AdminIpBlock {
  id: string;
  /** The network in CIDR form (`8.8.8.8/32`). */
  ip: string;
  severity: IpBlockSeverity;
  comment: string;
  created_at: string;
  expires_at: string | null;
}

/** The Admin::IpBlock of a row. */
export function toMastodonAdminIpBlock(row: IpBlockRow): AdminIpBlock {
  return {
    id: row.id,
    ip: row.ip,
    severity: row.severity,
    comment: row.comment,
    created_at: isoTime(row.created_at),
    expires_at: row.expires_at === null ? null : isoTime(row.expires_at),
  };
}
