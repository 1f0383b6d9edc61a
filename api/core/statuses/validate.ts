import type { AccountRow } from '../../db/repos/accounts.js';
import { findMediaByIds, type MediaRow } from '../../db/repos/media.js';
import type { Visibility } from '../../db/repos/statuses.js';
import { ApiError, unprocessable } from '../../util/errors.js';
import { countableLength } from '../../util/text/index.js';
import { normalizeLanguage } from '../accounts/languages.js';
import type { Deps } from '../deps.js';
import { STATUS_LIMITS } from '../instance/limits.js';

/** The visibilities a status may have. */
export const VISIBILITIES: readonly Visibility[] = ['public', 'unlisted', 'private', 'direct'];

/** Checks a visibility parameter (422 for anything else). */
export function checkVisibility(value: string): Visibility {
  if (!(VISIBILITIES as readonly string[]).includes(value)) throw unprocessable('Visibility is not included in the list');
  return value as Visibility;
}

/**
 * Checks the text rules of Mastodon's status validators: some text unless media is attached, and
 * text plus content warning within the character limit (links count as 23, `@user@domain` as `@user`).
 */
export function checkText(text: string, spoilerText: string, hasMedia: boolean): void {
  if (text.trim() === '' && !hasMedia) throw unprocessable("Text can't be blank");
  if (countableLength(spoilerText) + countableLength(text) > STATUS_LIMITS.max_characters) {
    throw unprocessable(`Text character limit of ${STATUS_LIMITS.max_characters} exceeded`);
  }
}

/**
 * The language a status gets: the one given when it is a valid ISO 639-1 code (a regional tag is
 * reduced to its language), else the fallback. An unknown code does not fail the request: Mastodon
 * falls back the same way.
 */
export function pickLanguage(given: string | null | undefined, ...fallbacks: (string | null | undefined)[]): string | null {
  for (const candidate of [given, ...fallbacks]) {
    if (typeof candidate === 'string' && candidate.trim() !== '') {
      const code = normalizeLanguage(candidate);
      if (code) return code;
    }
  }
  return null;
}

/**
 * Loads the media to attach, in the order given (repeats dropped): at most 4, each the author's
 * own, processed, and not attached to another status (`statusId` allows the status's own media,
 * for edits). Mixing a video or audio with anything else is refused, as Mastodon does.
 */
export function loadAttachableMedia(deps: Deps, author: AccountRow, ids: readonly string[], statusId: string | null): MediaRow[] {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  if (unique.length > STATUS_LIMITS.max_media_attachments) {
    throw new ApiError(422, `Cannot attach more than ${STATUS_LIMITS.max_media_attachments} files`);
  }
  const rows = findMediaByIds(deps.db, unique);
  const usable = (m: MediaRow | undefined): m is MediaRow =>
    m !== undefined && m.account_id === author.id && (m.status_id === null || m.status_id === statusId);
  const missing = unique.filter((id) => !usable(rows.get(id)));
  if (missing.length > 0) throw new ApiError(422, `Media ${missing.join(', ')} not found or already attached to another post`);
  const media = unique.map((id) => rows.get(id)).filter(usable);
  if (media.some((m) => m.processing !== 'done')) {
    throw new ApiError(422, 'Cannot attach files that have not finished processing. Try again in a moment!');
  }
  if (media.length > 1 && media.some((m) => m.type === 'video' || m.type === 'gifv' || m.type === 'audio')) {
    throw new ApiError(422, 'Cannot attach a video to a post that already contains images');
  }
  return media;
}

/** Mastodon refuses a poll and media on one status, with its "too many files" text (PostStatusService). */
export function checkPollAndMedia(hasPoll: boolean, hasMedia: boolean): void {
  if (hasPoll && hasMedia) throw new ApiError(422, `Cannot attach more than ${STATUS_LIMITS.max_media_attachments} files`);
}
