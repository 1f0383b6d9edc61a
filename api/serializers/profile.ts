import { parseProfileFields, parseStringList, type AccountRow } from '../db/repos/accounts.js';
import type { ProfileSettingsRow } from '../db/repos/profile.js';
import { isoTime } from '../util/clock.js';
import type { Uris } from '../util/uris.js';
import type { MastodonFeaturedTag } from './featured-tag.js';

/** A profile field as the owner typed it. */
export interface ProfileField {
  name: string;
  value: string;
  verified_at: string | null;
}

/** Mastodon's Profile entity. */
export interface MastodonProfile {
  id: string;
  display_name: string;
  note: string;
  fields: ProfileField[];
  avatar: string | null;
  avatar_static: string | null;
  avatar_description: string;
  header: string | null;
  header_static: string | null;
  header_description: string;
  locked: boolean;
  bot: boolean;
  hide_collections: boolean | null;
  discoverable: boolean | null;
  indexable: boolean;
  show_media: boolean;
  show_media_replies: boolean;
  show_featured: boolean;
  attribution_domains: string[];
  featured_tags: MastodonFeaturedTag[];
}

function verifiedAt(value: number | string | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'number' ? isoTime(value) : value;
}

/** The Profile entity of the owner's account row, its profile settings and its featured tags. */
export function toMastodonProfile(account: AccountRow, settings: ProfileSettingsRow, featuredTags: MastodonFeaturedTag[], uris: Uris): MastodonProfile {
  const file = (key: string | null) => (key === null ? null : uris.fileUrl(key));
  const avatar = file(account.avatar_file);
  const header = file(account.header_file);
  return {
    id: account.id,
    display_name: account.display_name,
    // As typed: a client edits this text, not the rendered HTML.
    note: account.note_source,
    fields: parseProfileFields(account.fields).map((f) => ({ name: f.name, value: f.value_source ?? f.value, verified_at: verifiedAt(f.verified_at) })),
    avatar,
    avatar_static: file(account.avatar_static_file) ?? avatar,
    avatar_description: settings.avatar_description,
    header,
    header_static: file(account.header_static_file) ?? header,
    header_description: settings.header_description,
    locked: account.locked === 1,
    bot: account.actor_type === 'Service' || account.actor_type === 'Application',
    hide_collections: account.hide_collections === 1,
    discoverable: account.discoverable === null ? null : account.discoverable === 1,
    indexable: account.indexable === 1,
    show_media: settings.show_media === 1,
    show_media_replies: settings.show_media_replies === 1,
    show_featured: settings.show_featured === 1,
    attribution_domains: parseStringList(account.attribution_domains),
    featured_tags: featuredTags,
  };
}

