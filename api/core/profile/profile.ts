import { findAccountById } from '../../db/repos/accounts.js';
import { findProfileSettings, updateProfileSettings, type ProfileSettingsChange } from '../../db/repos/profile.js';
import type { UserRow } from '../../db/repos/users.js';
import { toMastodonProfile, type MastodonProfile } from '../../serializers/profile.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound } from '../../util/errors.js';
import { updateCredentials, type CredentialsChange } from '../accounts/update.js';
import type { Deps } from '../deps.js';
import { MEDIA_LIMITS } from '../instance/limits.js';
import { listOwnFeaturedTags } from '../tags/featured.js';

/**
 * The profile API (Mastodon 4.6, `GET`/`PATCH /api/v1/profile`): the signed-in user's profile as
 * they edit it: the texts as typed (not rendered), the pictures with their descriptions, and the
 * profile settings, in Mastodon's Profile entity.
 */

/** What `PATCH /api/v1/profile` may change besides what update_credentials changes. */
export interface ProfileSettingsInput {
  avatar_description?: string | undefined;
  header_description?: string | undefined;
  show_media?: boolean | undefined;
  show_media_replies?: boolean | undefined;
  show_featured?: boolean | undefined;
}

/** Longest description of a profile picture: the media description limit the instance advertises. */
export const IMAGE_DESCRIPTION_MAX = MEDIA_LIMITS.description_limit;

/** `GET /api/v1/profile`: the signed-in user's profile. */
export function getProfile(deps: Deps, user: UserRow): MastodonProfile {
  const account = findAccountById(deps.db, user.account_id);
  const settings = account ? findProfileSettings(deps.db, account.id) : undefined;
  if (!account || !settings) throw notFound();
  return toMastodonProfile(account, settings, listOwnFeaturedTags(deps, account), deps.uris);
}

function checkDescription(attribute: 'avatar_description' | 'header_description', value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if ([...value].length > IMAGE_DESCRIPTION_MAX) {
    const label = attribute === 'avatar_description' ? 'Avatar description' : 'Header description';
    const description = `is too long (maximum is ${IMAGE_DESCRIPTION_MAX} characters)`;
    throw new ApiError(422, `Validation failed: ${label} ${description}`, { extra: { details: { [attribute]: [{ error: 'ERR_TOO_LONG', description }] } } });
  }
  return value;
}

/**
 * `PATCH /api/v1/profile`: the update_credentials change (checked and applied by
 * `updateCredentials`, which emits `account.updated`) plus the picture descriptions and the
 * profile tabs. Everything is checked before anything is written. Returns the new Profile.
 */
export function updateProfile(deps: Deps, user: UserRow, change: CredentialsChange, settings: ProfileSettingsInput): MastodonProfile {
  const flag = (v: boolean | undefined) => (v === undefined ? undefined : v ? 1 : 0);
  const extra: ProfileSettingsChange = {
    avatar_description: checkDescription('avatar_description', settings.avatar_description),
    header_description: checkDescription('header_description', settings.header_description),
    show_media: flag(settings.show_media),
    show_media_replies: flag(settings.show_media_replies),
    show_featured: flag(settings.show_featured),
  };
  // updateCredentials checks its part before writing anything (the settings above are checked
  // already), writes, and emits `account.updated`.
  const account = updateCredentials(deps, user, change);
  // No second event: nothing published (the actor document, the Account entity) shows these.
  if (Object.values(extra).some((v) => v !== undefined)) deps.db.transaction(() => updateProfileSettings(deps.db, account.id, extra, now()));
  return getProfile(deps, user);
}
