import { createHash } from 'node:crypto';
import type { DomainAllowRow, DomainBlockRow, DomainBlockSeverity } from '../db/repos/domain-rules.js';
import { isoTime } from '../util/clock.js';

/** Mastodon's Admin::DomainBlock entity. */
export interface AdminDomainBlock {
  id: string;
  domain: string;
  /** SHA-256 of the domain, hex. */
  digest: string;
  created_at: string;
  severity: DomainBlockSeverity;
  reject_media: boolean;
  reject_reports: boolean;
  private_comment: string | null;
  public_comment: string | null;
  obfuscate: boolean;
}

/** Mastodon's Admin::DomainAllow entity. */
export interface AdminDomainAllow {
  id: string;
  domain: string;
  created_at: string;
}

/** The Admin::DomainBlock of a row (the domain as stored: lower-case ASCII). */
export function toMastodonAdminDomainBlock(row: DomainBlockRow): AdminDomainBlock {
  return {
    id: row.id,
    domain: row.domain,
    digest: createHash('sha256').update(row.domain).digest('hex'),
    created_at: isoTime(row.created_at),
    severity: row.severity,
    reject_media: row.reject_media === 1,
    reject_reports: row.reject_reports === 1,
    private_comment: row.private_comment,
    public_comment: row.public_comment,
    obfuscate: row.obfuscate === 1,
  };
}

/** The Admin::DomainAllow of a row. */
export function toMastodonAdminDomainAllow(row: DomainAllowRow): AdminDomainAllow {
  return { id: row.id, domain: row.domain, created_at: isoTime(row.created_at) };
}
