import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { databaseBytes, dimensionRows, sqliteVersion } from '../../db/repos/admin-dimensions.js';
import { MediaStorage } from '../../media/storage.js';
import { now } from '../../util/clock.js';
import { HEARTH_VERSION } from '../../util/version.js';
import type { Deps } from '../deps.js';
import { languageName } from '../instance/languages.js';
import { subjectOf } from './measures.js';
import { checkedPeriod, DAY_MS, humanBytes, parseDay, periodParams, type Period } from './measures-period.js';

/**
 * The admin dashboard's dimensions (`POST /api/v1/admin/dimensions`, Mastodon's
 * Admin::Dimension): the largest groups of something over a period, counted from this
 * instance's own data. `space_usage` names what Hearth stores (the SQLite database and the media
 * directory) and `software_versions` what it runs on (Hearth, Node.js, SQLite), where Mastodon
 * names PostgreSQL and Redis.
 */

/** One group of a dimension. */
export interface MastodonAdminDimensionData {
  key: string;
  human_key: string;
  value: string;
  unit?: string;
  human_value?: string;
}

/** Mastodon's Admin::Dimension. */
export interface MastodonAdminDimension {
  key: string;
  data: MastodonAdminDimensionData[];
}

/** What each dimension is about besides the period. */
const DIMENSIONS: Record<string, 'none' | 'tag' | 'domain'> = {
  languages: 'none',
  sources: 'none',
  servers: 'none',
  space_usage: 'none',
  software_versions: 'none',
  tag_servers: 'tag',
  tag_languages: 'tag',
  instance_accounts: 'domain',
  instance_languages: 'domain',
};

/** The dimension keys, in Mastodon's order. */
export const DIMENSION_KEYS: readonly string[] = Object.keys(DIMENSIONS);

/** Groups per dimension unless `limit` says otherwise, and the most it may ask for. */
export const DEFAULT_DIMENSION_LIMIT = 10;
export const MAX_DIMENSION_LIMIT = 100;

/** The default period when none is given: the last 30 days, today included (the dashboard's). */
const DEFAULT_DAYS = 30;

/**
 * The period of a dimension request: both ends optional (a missing end is today, a missing start
 * 29 days before the end); a date that cannot be read counts as missing. 422 when it ends before it
 * starts or is too long.
 */
export function dimensionPeriod(input: Record<string, unknown>): Period {
  const toDay = parseDay(input.end_at) ?? Math.floor(now() / DAY_MS);
  const fromDay = parseDay(input.start_at) ?? toDay - (DEFAULT_DAYS - 1);
  return checkedPeriod({ fromDay, toDay });
}

/** The human name of a language code ('und' and unknown codes stay as they are). */
function languageLabel(code: string): string {
  return languageName(code) ?? code;
}

/** Bytes in the files under a directory (0 when it does not exist). */
async function directoryBytes(dir: string): Promise<number> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true, recursive: true });
  } catch {
    return 0;
  }
  let total = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    try {
      total += (await stat(join(entry.parentPath, entry.name))).size;
    } catch {
      // Removed meanwhile (the media clean-up): not counted.
    }
  }
  return total;
}

function bytesEntry(key: string, humanKey: string, bytes: number): MastodonAdminDimensionData {
  return { key, human_key: humanKey, value: String(bytes), unit: 'bytes', human_value: humanBytes(bytes) };
}

function versionEntry(key: string, humanKey: string, version: string): MastodonAdminDimensionData {
  return { key, human_key: humanKey, value: version, human_value: version };
}

async function dimensionOne(deps: Deps, key: string, period: Period, about: { tagId?: string; domain?: string }, limit: number): Promise<MastodonAdminDimension> {
  switch (key) {
    case 'space_usage':
      return {
        key,
        data: [bytesEntry('sqlite', 'SQLite', databaseBytes(deps.db)), bytesEntry('media', 'Media storage', await directoryBytes(new MediaStorage(deps.config.dataDir).root))],
      };
    case 'software_versions':
      return {
        key,
        data: [versionEntry('hearth', 'Hearth', HEARTH_VERSION), versionEntry('nodejs', 'Node.js', process.versions.node), versionEntry('sqlite', 'SQLite', sqliteVersion(deps.db))],
      };
    default: {
      const rows = dimensionRows(deps.db, key, periodParams(period, about), limit);
      const languages = key === 'languages' || key === 'tag_languages' || key === 'instance_languages';
      return {
        key,
        data: rows.map((r) => {
          // Statuses of this instance are grouped under '' by the query: they carry its domain.
          const name = key === 'tag_servers' && r.key === '' ? deps.uris.domain : r.key;
          return { key: name, human_key: languages ? languageLabel(name) : name, value: String(r.value) };
        }),
      };
    }
  }
}

/**
 * The dimensions asked for, in the order asked (unknown keys left out). One about a tag or a
 * domain needs it in `<key>[id]` or `<key>[domain]` (400 without, 404 for an unknown tag),
 * checked for every key before anything is counted.
 */
export async function computeDimensions(deps: Deps, keys: readonly string[], period: Period, params: Record<string, unknown>, limit: number): Promise<MastodonAdminDimension[]> {
  const wanted = keys.flatMap((key) => {
    const subject = DIMENSIONS[key];
    return subject ? [{ key, about: subjectOf(deps, params, key, subject) }] : [];
  });
  const out: MastodonAdminDimension[] = [];
  for (const w of wanted) out.push(await dimensionOne(deps, w.key, period, w.about, limit));
  return out;
}
