import type { Db } from '../connection.js';
import type { MetricParams } from './admin-metrics.js';

/**
 * The admin dashboard's dimensions (Mastodon's Admin::Metrics::Dimension): the largest groups of
 * something, counted from the tables. Queries take the period and subject parameters of
 * admin-metrics.ts (`since_id`, `until_id`, `tag_id`, `domain`, `dot_domain`) and `limit`.
 */
export interface DimensionRow {
  key: string;
  value: number;
}

const IN_IDS = (column: string) => `${column} >= @since_id AND ${column} < @until_id`;
const OF_DOMAIN = (alias: string) => `(${alias}.domain = @domain OR substr(${alias}.domain, -length(@dot_domain)) = @dot_domain)`;
const TOP = 'GROUP BY key ORDER BY value DESC, key LIMIT @limit';

/** The SQL of each dimension that is counted from the database. */
const DIMENSIONS: Record<string, string> = {
  // Local statuses (boosts aside) by language ('und' when none was set).
  languages: `SELECT coalesce(s.language, 'und') AS key, count(*) AS value FROM statuses s
    WHERE s.local = 1 AND s.reblog_of_id IS NULL AND ${IN_IDS('s.id')} ${TOP}`,
  // Local statuses by the app they were posted with.
  sources: `SELECT a.name AS key, count(*) AS value FROM statuses s JOIN oauth_applications a ON a.id = s.application_id
    WHERE s.local = 1 AND s.reblog_of_id IS NULL AND ${IN_IDS('s.id')} ${TOP}`,
  // Remote statuses by server.
  servers: `SELECT a.domain AS key, count(*) AS value FROM statuses s JOIN accounts a ON a.id = s.account_id
    WHERE a.domain IS NOT NULL AND ${IN_IDS('s.id')} ${TOP}`,
  // Statuses with a tag by server ('' for this one, named by the caller).
  tag_servers: `SELECT coalesce(a.domain, '') AS key, count(*) AS value FROM statuses_tags st
    JOIN statuses s ON s.id = st.status_id JOIN accounts a ON a.id = s.account_id
    WHERE st.tag_id = @tag_id AND ${IN_IDS('st.status_id')} ${TOP}`,
  // Statuses with a tag by language.
  tag_languages: `SELECT coalesce(s.language, 'und') AS key, count(*) AS value FROM statuses_tags st
    JOIN statuses s ON s.id = st.status_id
    WHERE st.tag_id = @tag_id AND ${IN_IDS('st.status_id')} ${TOP}`,
  // A server's accounts by how many follows this instance knows of them (its local followers), of all time.
  instance_accounts: `SELECT a.username AS key, count(f.id) AS value FROM accounts a JOIN follows f ON f.target_account_id = a.id
    WHERE ${OF_DOMAIN('a')} GROUP BY a.id ORDER BY value DESC, key LIMIT @limit`,
  // A server's statuses by language.
  instance_languages: `SELECT coalesce(s.language, 'und') AS key, count(*) AS value FROM statuses s JOIN accounts a ON a.id = s.account_id
    WHERE ${OF_DOMAIN('a')} AND ${IN_IDS('s.id')} ${TOP}`,
};

/** The groups of a dimension, largest first, at most `limit`. */
export function dimensionRows(db: Db, key: string, params: MetricParams, limit: number): DimensionRow[] {
  const sql = DIMENSIONS[key];
  if (!sql) throw new Error(`unknown dimension: ${key}`);
  return db.query<DimensionRow>(sql).all({ ...params, limit });
}

/** The database's size on disk, in bytes (its pages; the write-ahead log aside). */
export function databaseBytes(db: Db): number {
  const row = db.query<{ bytes: number }>('SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()').get();
  return row?.bytes ?? 0;
}

/** The SQLite library's version. */
export function sqliteVersion(db: Db): string {
  return db.query<{ v: string }>('SELECT sqlite_version() AS v').get()?.v ?? '';
}
