import {
  findAnnualReport,
  followersGainedBetween,
  insertAnnualReport,
  markAnnualReportViewed,
  mostReblogged,
  topYearHashtags,
  unreadAnnualReports,
  yearStatusCounts,
  type AnnualReportRow,
  type YearStatusCounts,
} from '../../db/repos/annual-reports.js';
import type { Account } from '../../serializers/account.js';
import type { MastodonStatus } from '../../serializers/status.js';
import { now } from '../../util/clock.js';
import { notFound } from '../../util/errors.js';
import { minIdAtTime } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { presentStatuses } from '../statuses/views.js';

/**
 * Annual reports ("Wrapstodon", Mastodon 4.3+, schema version 2 of 4.6): a summary of a user's
 * year made from what this instance holds of it: their statuses of the year (by id, which sorts by
 * time), the hashtag they used most, their most boosted status, the followers they gained, and an
 * archetype from the mix of what they posted. As in Mastodon, a report can be generated during the
 * year's campaign (10 to 31 December) by a user with at least one public or unlisted status and
 * one hashtag that year; once made it is kept as it was.
 */

export const SCHEMA_VERSION = 2;

/** Average number of posts of an active Mastodon user in a year (Mastodon's figure, from 2023). */
const AVERAGE_PER_YEAR = 113;

export type Archetype = 'lurker' | 'booster' | 'pollster' | 'replier' | 'oracle';

/** The `data` of a schema version 2 report. */
export interface AnnualReportData {
  archetype: Archetype;
  time_series: { month: number; statuses: number; followers: number }[];
  top_hashtags: { name: string; count: number }[];
  top_statuses: { by_reblogs: string | null; by_favourites: null; by_replies: null };
}

/** Mastodon's AnnualReport entity. */
export interface MastodonAnnualReport {
  year: number;
  data: AnnualReportData;
  schema_version: number;
  share_url: string | null;
  account_id: string;
}

/** Mastodon's WrappedAnnualReports: reports with the accounts and statuses they refer to. */
export interface WrappedAnnualReports {
  annual_reports: MastodonAnnualReport[];
  accounts: Account[];
  statuses: MastodonStatus[];
}

/** The state of a year's report for a user. */
export type ReportState = 'available' | 'generating' | 'eligible' | 'ineligible';

/** A year as a path gives it, or null when it is not one. */
export function parseYear(raw: string): number | null {
  return /^\d{4}$/.test(raw) ? Number(raw) : null;
}

/** The year whose report can be made now (10 to 31 December, UTC), if any. */
export function currentCampaign(at: number = now()): number | null {
  const d = new Date(at);
  return d.getUTCMonth() === 11 && d.getUTCDate() >= 10 ? d.getUTCFullYear() : null;
}

function yearBounds(year: number): { from: number; to: number; fromId: string; toId: string } {
  const from = Date.UTC(year, 0, 1);
  const to = Date.UTC(year + 1, 0, 1);
  return { from, to, fromId: minIdAtTime(from), toId: minIdAtTime(to) };
}

/** Mastodon's archetype rules, from the kinds of statuses of the year. */
export function archetypeOf(c: YearStatusCounts): Archetype {
  if (c.standalone + c.replies + c.reblogs < AVERAGE_PER_YEAR) return 'lurker';
  if (c.reblogs > c.standalone * 2) return 'booster';
  // Statuses with a poll are counted among the standalone ones too.
  if (c.polls > c.standalone * 0.1) return 'pollster';
  if (c.replies > c.standalone * 2) return 'replier';
  return 'oracle';
}

function eligible(counts: YearStatusCounts): boolean {
  return counts.distributable > 0 && counts.tagged > 0;
}

/** Builds a report's data from the instance's records of the user's year. */
function reportData(deps: Deps, accountId: string, year: number, counts: YearStatusCounts): AnnualReportData {
  const b = yearBounds(year);
  return {
    archetype: archetypeOf(counts),
    // Schema version 2 sums up the year in one entry, filed under December.
    time_series: [{ month: 12, statuses: counts.total, followers: followersGainedBetween(deps.db, accountId, b.from, b.to) }],
    top_hashtags: topYearHashtags(deps.db, accountId, b.fromId, b.toId, 1),
    top_statuses: { by_reblogs: mostReblogged(deps.db, accountId, b.fromId, b.toId), by_favourites: null, by_replies: null },
  };
}

/** The state of a year's report: made, or whether it can be made now. */
export function reportState(deps: Deps, accountId: string, rawYear: string): ReportState {
  const year = parseYear(rawYear);
  if (year === null) return 'ineligible';
  if (findAnnualReport(deps.db, accountId, year)) return 'available';
  if (currentCampaign() !== year) return 'ineligible';
  const b = yearBounds(year);
  return eligible(yearStatusCounts(deps.db, accountId, b.fromId, b.toId)) ? 'eligible' : 'ineligible';
}

/**
 * Makes the year's report when it can be made now and is not made yet (at once: the instance's
 * own data is small). Outside the campaign, or for an ineligible user, nothing happens.
 */
export function generateReport(deps: Deps, accountId: string, rawYear: string): void {
  const year = parseYear(rawYear);
  if (year === null || currentCampaign() !== year || findAnnualReport(deps.db, accountId, year)) return;
  const b = yearBounds(year);
  const counts = yearStatusCounts(deps.db, accountId, b.fromId, b.toId);
  if (!eligible(counts)) return;
  const data = reportData(deps, accountId, year, counts);
  deps.db.transaction(() =>
    insertAnnualReport(deps.db, { account_id: accountId, year, schema_version: SCHEMA_VERSION, data: JSON.stringify(data), viewed_at: null, created_at: now() }),
  );
}

function toEntity(row: AnnualReportRow): MastodonAnnualReport {
  return { year: row.year, data: JSON.parse(row.data) as AnnualReportData, schema_version: row.schema_version, share_url: null, account_id: row.account_id };
}

function wrap(deps: Deps, rows: readonly AnnualReportRow[], viewerId: string): WrappedAnnualReports {
  const reports = rows.map(toEntity);
  const statusIds = reports.flatMap((r) => [r.data.top_statuses.by_reblogs]).filter((id): id is string => id !== null);
  return { annual_reports: reports, accounts: [], statuses: presentStatuses(deps, statusIds, viewerId) };
}

/** `GET /api/v1/annual_reports`: the user's reports not marked read yet. */
export function listReports(deps: Deps, accountId: string): WrappedAnnualReports {
  return wrap(deps, unreadAnnualReports(deps.db, accountId), accountId);
}

function loadReport(deps: Deps, accountId: string, rawYear: string): AnnualReportRow {
  const year = parseYear(rawYear);
  const row = year === null ? undefined : findAnnualReport(deps.db, accountId, year);
  if (!row) throw notFound();
  return row;
}

/** `GET /api/v1/annual_reports/:year`: the year's report; 404 when it was not made. */
export function showReport(deps: Deps, accountId: string, rawYear: string): WrappedAnnualReports {
  return wrap(deps, [loadReport(deps, accountId, rawYear)], accountId);
}

/** `POST /api/v1/annual_reports/:year/read`: marks the report read; 404 when it was not made. */
export function markReportRead(deps: Deps, accountId: string, rawYear: string): void {
  const row = loadReport(deps, accountId, rawYear);
  deps.db.transaction(() => markAnnualReportViewed(deps.db, accountId, row.year, now()));
}
