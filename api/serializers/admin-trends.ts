import type { TagRow } from '../db/repos/tags.js';
import type { ProviderRow } from '../db/repos/trends-review.js';
import { isoTime } from '../util/clock.js';
import type { Uris } from '../util/uris.js';
import type { MastodonPreviewCard } from './preview-card.js';
import type { MastodonStatus } from './status.js';
import type { MastodonTagHistory } from './tag.js';

/** Mastodon's Admin::Tag: a Tag with its review state, as staff see it in the trends. */
export interface MastodonAdminTag {
  id: string;
  name: string;
  url: string;
  history: MastodonTagHistory[];
  /** Whether it may trend (approved, or not reviewed while unreviewed tags may trend). */
  trendable: boolean;
  usable: boolean;
  /** Whether nobody has approved or rejected it yet. */
  requires_review: boolean;
}

/** A trending link as staff see it (REST::Admin::Trends::LinkSerializer): the card's id and review state besides. */
export interface MastodonAdminTrendsLink extends MastodonPreviewCard {
  id: string;
  history: MastodonTagHistory[];
  requires_review: boolean;
}

/** A trending status as staff see it (REST::Admin::Trends::StatusSerializer). */
export type MastodonAdminTrendsStatus = MastodonStatus & { requires_review: boolean };

/** A link publisher (REST::Admin::Trends::Links::PreviewCardProviderSerializer). */
export interface MastodonAdminPublisher {
  id: string;
  domain: string;
  trendable: boolean;
  reviewed_at: string | null;
  requested_review_at: string | null;
  requires_review: boolean;
}

/** The Admin::Tag of a tag row, given its review as applied. */
export function toMastodonAdminTag(
  row: TagRow,
  uris: Uris,
  review: { history: MastodonTagHistory[]; trendable: boolean; requiresReview: boolean },
): MastodonAdminTag {
  return {
    id: row.id,
    name: row.name,
    url: uris.tagUrl(row.name),
    history: review.history,
    trendable: review.trendable,
    usable: row.usable === 1,
    requires_review: review.requiresReview,
  };
}

/** The publisher entity; `trendable` is its verdict applied (the default while unreviewed). */
export function toMastodonAdminPublisher(row: ProviderRow, trendable: boolean): MastodonAdminPublisher {
  return {
    id: row.id,
    domain: row.domain,
    trendable,
    reviewed_at: row.reviewed_at === null ? null : isoTime(row.reviewed_at),
    requested_review_at: row.requested_review_at === null ? null : isoTime(row.requested_review_at),
    requires_review: row.reviewed_at === null && row.requested_review_at !== null,
  };
}
