import type { MediaRow } from '../db/repos/media.js';
import type { ScheduledStatusRow } from '../db/repos/scheduled-statuses.js';
import { isoTime } from '../util/clock.js';
import type { Uris } from '../util/uris.js';
import { toMastodonMediaAttachment, type MastodonMediaAttachment } from './media-attachment.js';

/**
 * The status parameters a scheduled status keeps until it is published, as Mastodon stores them
 * (`params` of the ScheduledStatus entity). Ids are decimal strings here; `idempotency` and
 * `scheduled_at` are always null once scheduled, as in Mastodon.
 */
export interface ScheduledParams {
  text: string;
  poll: { options: string[]; expires_in: number; multiple: boolean; hide_totals: boolean } | null;
  media_ids: string[] | null;
  sensitive: boolean | null;
  spoiler_text: string | null;
  visibility: 'public' | 'unlisted' | 'private' | 'direct';
  language: string | null;
  in_reply_to_id: string | null;
  /** The status it will quote (absent in params stored before quotes existed). */
  quoted_status_id?: string | null;
  /** Who may quote it, when asked (else the author's default when it is published). */
  quote_approval_policy?: string;
  application_id: string | null;
  idempotency: string | null;
  scheduled_at: null;
  with_rate_limit: boolean;
}

/**
 * A JSON integer written digit for digit. Mastodon writes `in_reply_to_id` and `application_id`
 * of scheduled params as JSON integers, and our 64-bit ids do not fit a JS number: JSON.rawJSON
 * keeps every digit when the response is serialized.
 */
export type JsonInteger = number | { readonly rawJSON: string };

/** Mastodon's ScheduledStatus entity. */
export interface MastodonScheduledStatus {
  id: string;
  scheduled_at: string;
  params: Omit<ScheduledParams, 'in_reply_to_id' | 'application_id'> & {
    in_reply_to_id: JsonInteger | null;
    application_id: JsonInteger | null;
  };
  media_attachments: MastodonMediaAttachment[];
}

const rawJson = (JSON as unknown as { rawJSON?: (text: string) => { readonly rawJSON: string } }).rawJSON;

function jsonInteger(id: string | null): JsonInteger | null {
  if (id === null) return null;
  return rawJson ? rawJson(id) : Number(id);
}

/** Reads the stored params JSON of a scheduled status. */
export function parseScheduledParams(row: Pick<ScheduledStatusRow, 'params'>): ScheduledParams {
  return JSON.parse(row.params) as ScheduledParams;
}

/**
 * The ScheduledStatus entity: the stored params, and the media to be attached (the rows given,
 * in the order of params.media_ids; rows that no longer exist are left out).
 */
export function toMastodonScheduledStatus(row: ScheduledStatusRow, media: ReadonlyMap<string, MediaRow>, uris: Uris): MastodonScheduledStatus {
  const params = parseScheduledParams(row);
  const attachments: MastodonMediaAttachment[] = [];
  for (const id of params.media_ids ?? []) {
    const m = media.get(id);
    if (m) attachments.push(toMastodonMediaAttachment(m, uris));
  }
  return {
    id: row.id,
    scheduled_at: isoTime(row.scheduled_at),
    params: {
      ...params,
      in_reply_to_id: jsonInteger(params.in_reply_to_id),
      application_id: jsonInteger(params.application_id),
    },
    media_attachments: attachments,
  };
}
