import type { Db } from '../connection.js';

/**
 * The admin dashboard's measures (Mastodon's Admin::Metrics::Measure), counted from the tables.
 * Every query takes the same named parameters (unused ones are ignored):
 * - `from_ms`, `to_ms`: the period as times (to exclusive), `from_day`, `to_day`: as UTC day
 *   numbers (inclusive), `since_id`, `until_id`: as an id range (ids sort by creation time);
 * - `tag_id`, `domain` (lower case) and `dot_domain` ('.' + domain, for subdomains).
 */
export interface MetricParams {
  from_ms: number;
  to_ms: number;
  from_day: number;
  to_day: number;
  since_id: string;
  until_id: string;
  tag_id: string | null;
  domain: string | null;
  dot_domain: string | null;
}

/** One day of a measure. */
export interface DailyValue {
  day: number;
  value: number;
}

/** What a measure counts: per day over the period, and its total (over the period, or of all time). */
interface MetricSql {
  daily: string;
  total: string;
}

const DAY = 86_400_000;
const IN_MS = (column: string) => `${column} >= @from_ms AND ${column} < @to_ms`;
const IN_IDS = (column: string) => `${column} >= @since_id AND ${column} < @until_id`;
const OF_DOMAIN = (alias: string) => `(${alias}.domain = @domain OR substr(${alias}.domain, -length(@dot_domain)) = @dot_domain)`;

/** Counts per day of rows in a FROM … WHERE clause, grouped by the day of `timeColumn`. */
function perDay(fromWhere: string, timeColumn: string, value = 'count(*)'): string {
  return `SELECT ${timeColumn} / ${DAY} AS day, ${value} AS value ${fromWhere} GROUP BY day`;
}

// Interactions with local statuses: favourites, boosts and replies, by when they happened.
const INTERACTIONS = `SELECT day, sum(value) AS value FROM (
    ${perDay(`FROM favourites f JOIN statuses s ON s.id = f.status_id WHERE s.local = 1 AND ${IN_MS('f.created_at')}`, 'f.created_at')}
    UNION ALL
    ${perDay(`FROM statuses r JOIN statuses s ON s.id = r.reblog_of_id WHERE s.local = 1 AND ${IN_IDS('r.id')}`, 'r.created_at')}
    UNION ALL
    ${perDay(`FROM statuses r JOIN statuses s ON s.id = r.in_reply_to_id WHERE s.local = 1 AND ${IN_IDS('r.id')}`, 'r.created_at')}
  ) GROUP BY day`;

const TAGGED = `FROM statuses_tags st JOIN statuses s ON s.id = st.status_id JOIN accounts a ON a.id = s.account_id
  WHERE st.tag_id = @tag_id AND ${IN_IDS('st.status_id')}`;

const FOLLOWS = `FROM follows f JOIN accounts a ON a.id = f.account_id JOIN accounts t ON t.id = f.target_account_id`;

/** The SQL of each measure Mastodon documents. */
const METRICS: Record<string, MetricSql> = {
  active_users: {
    daily: 'SELECT day, count(*) AS value FROM user_activity_days WHERE day BETWEEN @from_day AND @to_day GROUP BY day',
    total: 'SELECT count(DISTINCT user_id) FROM user_activity_days WHERE day BETWEEN @from_day AND @to_day',
  },
  new_users: {
    daily: perDay(`FROM users WHERE ${IN_MS('created_at')}`, 'created_at'),
    total: `SELECT count(*) FROM users WHERE ${IN_MS('created_at')}`,
  },
  interactions: {
    daily: INTERACTIONS,
    total: `SELECT coalesce(sum(value), 0) FROM (${INTERACTIONS})`,
  },
  opened_reports: {
    daily: perDay(`FROM reports WHERE ${IN_MS('created_at')}`, 'created_at'),
    total: `SELECT count(*) FROM reports WHERE ${IN_MS('created_at')}`,
  },
  resolved_reports: {
    daily: perDay(`FROM reports WHERE action_taken_at IS NOT NULL AND ${IN_MS('action_taken_at')}`, 'action_taken_at'),
    total: `SELECT count(*) FROM reports WHERE action_taken_at IS NOT NULL AND ${IN_MS('action_taken_at')}`,
  },
  tag_accounts: {
    daily: perDay(TAGGED, 's.created_at', 'count(DISTINCT s.account_id)'),
    total: `SELECT count(DISTINCT s.account_id) ${TAGGED}`,
  },
  tag_uses: {
    daily: perDay(TAGGED, 's.created_at'),
    total: `SELECT count(*) ${TAGGED}`,
  },
  tag_servers: {
    daily: perDay(`${TAGGED} AND a.domain IS NOT NULL`, 's.created_at', 'count(DISTINCT a.domain)'),
    total: `SELECT count(DISTINCT a.domain) ${TAGGED} AND a.domain IS NOT NULL`,
  },
  // The instance measures' totals are of all time, as Mastodon's are.
  instance_accounts: {
    daily: perDay(`FROM accounts a WHERE ${OF_DOMAIN('a')} AND ${IN_MS('a.created_at')}`, 'a.created_at'),
    total: `SELECT count(*) FROM accounts a WHERE ${OF_DOMAIN('a')}`,
  },
  instance_media_attachments: {
    daily: perDay(
      `FROM media_attachments m JOIN accounts a ON a.id = m.account_id WHERE ${OF_DOMAIN('a')} AND ${IN_MS('m.created_at')}`,
      'm.created_at',
      'coalesce(sum(m.file_size), 0)',
    ),
    total: `SELECT coalesce(sum(m.file_size), 0) FROM media_attachments m JOIN accounts a ON a.id = m.account_id WHERE ${OF_DOMAIN('a')}`,
  },
  instance_reports: {
    daily: perDay(`FROM reports r JOIN accounts a ON a.id = r.target_account_id WHERE ${OF_DOMAIN('a')} AND ${IN_MS('r.created_at')}`, 'r.created_at'),
    total: `SELECT count(*) FROM reports r JOIN accounts a ON a.id = r.target_account_id WHERE ${OF_DOMAIN('a')}`,
  },
  instance_statuses: {
    daily: perDay(`FROM statuses s JOIN accounts a ON a.id = s.account_id WHERE ${OF_DOMAIN('a')} AND ${IN_IDS('s.id')}`, 's.created_at'),
    total: `SELECT count(*) FROM statuses s JOIN accounts a ON a.id = s.account_id WHERE ${OF_DOMAIN('a')}`,
  },
  instance_follows: {
    daily: perDay(`${FOLLOWS} WHERE ${OF_DOMAIN('t')} AND a.domain IS NULL AND ${IN_MS('f.created_at')}`, 'f.created_at'),
    total: `SELECT count(*) ${FOLLOWS} WHERE ${OF_DOMAIN('t')} AND a.domain IS NULL`,
  },
  instance_followers: {
    daily: perDay(`${FOLLOWS} WHERE ${OF_DOMAIN('a')} AND t.domain IS NULL AND ${IN_MS('f.created_at')}`, 'f.created_at'),
    total: `SELECT count(*) ${FOLLOWS} WHERE ${OF_DOMAIN('a')} AND t.domain IS NULL`,
  },
};

/** The measure keys this repo can count. */
export const METRIC_KEYS: readonly string[] = Object.keys(METRICS);

function sqlOf(key: string): MetricSql {
  const sql = METRICS[key];
  if (!sql) throw new Error(`unknown measure: ${key}`);
  return sql;
}

/** A measure's values per day over the period (days without any are left out). */
export function metricDaily(db: Db, key: string, params: MetricParams): DailyValue[] {
  return db.query<DailyValue>(sqlOf(key).daily).all({ ...params });
}

/** A measure's total: over the period, or of all time for the instance measures. */
export function metricTotal(db: Db, key: string, params: MetricParams): number {
  return db.query<{ total: number | null }>(`SELECT (${sqlOf(key).total}) AS total`).get({ ...params })?.total ?? 0;
}

/** Whether a tag exists. */
export function tagExists(db: Db, id: string): boolean {
  return db.query('SELECT 1 FROM tags WHERE id = ?').get(id) !== undefined;
}

/** Records that a user used the instance on a day (nothing when already recorded). */
export function insertUserActivity(db: Db, day: number, userId: string): void {
  db.query('INSERT INTO user_activity_days (day, user_id) VALUES (@day, @user_id) ON CONFLICT DO NOTHING').run({ day, user_id: userId });
}

/** A user as the retention cohorts see them: when they signed up, and the last day they were seen. */
export interface CohortUser {
  created_at: number;
  last_sign_in_at: number | null;
  /** The last day (day number) in user_activity_days, or null. */
  last_day: number | null;
}

/** The users who signed up between two times (to exclusive), with their last activity. */
export function cohortUsers(db: Db, fromMs: number, toMs: number): CohortUser[] {
  return db
    .query<CohortUser>(
      `SELECT u.created_at, u.last_sign_in_at, (SELECT max(d.day) FROM user_activity_days d WHERE d.user_id = u.id) AS last_day
       FROM users u WHERE u.created_at >= @from_ms AND u.created_at < @to_ms`,
    )
    .all({ from_ms: fromMs, to_ms: toMs });
}
