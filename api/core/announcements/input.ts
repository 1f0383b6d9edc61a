import type { AnnouncementRow } from '../../db/repos/announcements.js';
import { isoTime } from '../../util/clock.js';
import { isBlank, Problems } from '../filters/problems.js';

/**
 * What the staff give for an announcement, from the admin API or the command line. A field left
 * undefined is not given (an edit keeps it); a time given as null or '' is cleared. Times are
 * date-times as text (ISO 8601; a bare date is midnight UTC).
 */
export interface AnnouncementParams {
  text?: string | undefined;
  starts_at?: string | null | undefined;
  ends_at?: string | null | undefined;
  all_day?: boolean | undefined;
  scheduled_at?: string | null | undefined;
}

/** The fields of an announcement the staff set, once read and checked. */
export interface AnnouncementFields {
  text: string;
  starts_at: number | null;
  ends_at: number | null;
  all_day: boolean;
  scheduled_at: number | null;
}

const LABELS = { starts_at: 'Starts at', ends_at: 'Ends at', scheduled_at: 'Scheduled at' } as const;
type TimeField = keyof typeof LABELS;

// An ISO 8601 date, or date and time with an optional offset (none is UTC, as Rails reads them).
const ISO_TIME = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;

/** A time field: undefined when not given, null when cleared, NaN when it is no date. */
function readTime(value: string | null | undefined): number | null | undefined {
  if (value === undefined) return undefined;
  if (value === null || value.trim() === '') return null;
  const m = ISO_TIME.exec(value.trim());
  if (!m) return NaN;
  const [, date, clock, zone] = m;
  return Date.parse(`${date}T${clock ?? '00:00'}${zone ?? 'Z'}`);
}

/**
 * The fields that result from applying `params` to `current` (an edit) or to an empty
 * announcement (a new one), checked as Mastodon's model checks them: a text; a start and an end
 * that go together; and, besides, an end after the start and `all_day` only with both (the
 * presence rules' messages say what is missing). Throws one 422 naming every problem, so nothing
 * is written unless all is well.
 */
export function resolveAnnouncementFields(params: AnnouncementParams, current: AnnouncementRow | null): AnnouncementFields {
  const problems = new Problems();
  const times = {} as Record<TimeField, number | null>;
  const invalid = new Set<TimeField>();
  for (const field of Object.keys(LABELS) as TimeField[]) {
    const given = readTime(params[field]);
    if (given !== undefined && given !== null && !Number.isFinite(given)) {
      invalid.add(field);
      times[field] = current ? current[field] : null;
    } else {
      times[field] = given === undefined ? (current ? current[field] : null) : given;
    }
  }
  const fields: AnnouncementFields = {
    text: params.text ?? current?.text ?? '',
    starts_at: times.starts_at,
    ends_at: times.ends_at,
    all_day: params.all_day ?? current?.all_day === 1,
    scheduled_at: times.scheduled_at,
  };
  if (isBlank(fields.text)) problems.blank('text', 'Text');
  for (const field of invalid) problems.add(field, LABELS[field], 'ERR_INVALID', 'is invalid');
  // An all-day announcement is all day between two dates: it needs both, as a range does.
  if (fields.starts_at === null && !invalid.has('starts_at') && (fields.ends_at !== null || fields.all_day)) problems.blank('starts_at', LABELS.starts_at);
  if (fields.ends_at === null && !invalid.has('ends_at') && (fields.starts_at !== null || fields.all_day)) problems.blank('ends_at', LABELS.ends_at);
  if (fields.starts_at !== null && fields.ends_at !== null && fields.ends_at <= fields.starts_at) {
    problems.add('ends_at', LABELS.ends_at, 'ERR_GREATER_THAN', `must be greater than ${isoTime(fields.starts_at)}`);
  }
  problems.throwIfAny();
  return fields;
}
