import { domainToUnicode } from 'node:url';
import { findAccountById, parseProfileFields, updateAccount, type AccountRow, type AccountUpdate, type StoredProfileField } from '../../db/repos/accounts.js';
import type { UserRow } from '../../db/repos/users.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound } from '../../util/errors.js';
import { formatBioHtml, formatFieldHtml } from '../../util/text/index.js';
import type { Deps } from '../deps.js';
import { textLinks } from '../statuses/text.js';
import { acceptPendingRequestsOnUnlock } from '../relationships/follow-requests.js';
import { PROFILE_LIMITS } from '../instance/limits.js';
import { isLanguageCode } from './languages.js';
import { updateUserSettings, type QuotePolicy, type UserSettings } from './settings.js';

// Profile limits come from the one table the instance endpoints advertise, so they cannot drift.
const DISPLAY_NAME_MAX = PROFILE_LIMITS.max_display_name_length;
const NOTE_MAX = PROFILE_LIMITS.max_note_length;
const PROFILE_FIELDS_MAX = PROFILE_LIMITS.max_profile_fields;
const PROFILE_FIELD_NAME_MAX = PROFILE_LIMITS.profile_field_name_limit;
const PROFILE_FIELD_VALUE_MAX = PROFILE_LIMITS.profile_field_value_limit;
/** Most attribution domains an account may list, as Mastodon allows. */
export const ATTRIBUTION_DOMAINS_MAX = 10;

/** A profile change as `PATCH /api/v1/accounts/update_credentials` asks for it; absent means unchanged. */
export interface CredentialsChange {
  display_name?: string | undefined;
  note?: string | undefined;
  locked?: boolean | undefined;
  bot?: boolean | undefined;
  discoverable?: boolean | undefined;
  hide_collections?: boolean | undefined;
  indexable?: boolean | undefined;
  /** The complete new list of fields (replaces the old one); blank name-and-value pairs are dropped. */
  fields?: { name?: string | undefined; value?: string | undefined }[] | undefined;
  attribution_domains?: string[] | undefined;
  /** New avatar and header files, already processed and stored (core/media/profile-images.ts). */
  images?: Pick<AccountUpdate, 'avatar_file' | 'avatar_static_file' | 'header_file' | 'header_static_file'> | undefined;
  source?:
    | {
        privacy?: string | undefined;
        sensitive?: boolean | undefined;
        /** '' or null clears the default language. */
        language?: string | null | undefined;
        quote_policy?: string | undefined;
      }
    | undefined;
}

type Details = Record<string, { error: string; description: string }[]>;

/** Collects validation problems as Mastodon reports them: a message per problem and `details` per attribute. */
class Problems {
  readonly messages: string[] = [];
  readonly details: Details = {};

  add(attribute: string, label: string, code: string, description: string): void {
    this.messages.push(`${label} ${description}`);
    (this.details[attribute] ??= []).push({ error: code, description });
  }

  throwIfAny(): void {
    if (this.messages.length === 0) return;
    throw new ApiError(422, `Validation failed: ${this.messages.join(', ')}`, { extra: { details: this.details } });
  }
}

/** Length in characters (code points), as Mastodon counts these limits. */
function length(text: string): number {
  return [...text].length;
}

const HOST_LABEL = /^(?!-)[\p{L}\p{N}-]{1,63}(?<!-)$/u;

/** A host name as attribution domains store it (lower case, Unicode), or null when it is not one. */
function normalizeHost(value: string): string | null {
  let host = value.trim().toLowerCase();
  // People paste URLs; keep their host.
  if (/^https?:\/\//.test(host)) {
    try {
      host = new URL(host).hostname;
    } catch {
      return null;
    }
  }
  host = domainToUnicode(host) || host;
  const labels = host.split('.');
  return labels.length >= 2 && labels.every((l) => HOST_LABEL.test(l)) ? host : null;
}

function fieldsWithVerification(input: NonNullable<CredentialsChange['fields']>, previous: StoredProfileField[]): StoredProfileField[] {
  return input
    .map((f) => ({ name: f.name ?? '', value: f.value ?? '' }))
    .filter((f) => f.name.trim() !== '' || f.value.trim() !== '')
    .map((f) => {
      // A verification stays valid while the value it verified is unchanged.
      const before = previous.find((p) => (p.value_source ?? p.value) === f.value && p.verified_at);
      return { name: f.name, value: formatFieldHtml(f.value), value_source: f.value, verified_at: before?.verified_at ?? null };
    });
}

/**
 * Applies a profile and preferences change of the signed-in user: every value is checked first
 * (422 naming each problem, nothing written), then the account and the user's settings change in
 * one transaction, and `account.updated` is emitted. Returns the updated account row.
 */
export function updateCredentials(deps: Deps, user: UserRow, change: CredentialsChange): AccountRow {
  const account = findAccountById(deps.db, user.account_id);
  if (!account) throw notFound();
  const problems = new Problems();
  const update: AccountUpdate = {};

  if (change.display_name !== undefined) {
    if (length(change.display_name) > DISPLAY_NAME_MAX) {
      problems.add('display_name', 'Display name', 'ERR_TOO_LONG', `is too long (maximum is ${DISPLAY_NAME_MAX} characters)`);
    }
    update.display_name = change.display_name;
  }
  if (change.note !== undefined) {
    if (length(change.note) > NOTE_MAX) problems.add('note', 'Note', 'ERR_TOO_LONG', `is too long (maximum is ${NOTE_MAX} characters)`);
    update.note_source = change.note;
    // Mentions of known accounts and hashtags are linked, as Mastodon links them in bios.
    update.note = formatBioHtml(change.note, textLinks(deps));
  }
  if (change.locked !== undefined) update.locked = change.locked ? 1 : 0;
  if (change.bot !== undefined) {
    // The bot flag is the actor type; a group stays a group.
    if (account.actor_type !== 'Group') update.actor_type = change.bot ? 'Service' : 'Person';
  }
  if (change.discoverable !== undefined) update.discoverable = change.discoverable ? 1 : 0;
  if (change.hide_collections !== undefined) update.hide_collections = change.hide_collections ? 1 : 0;
  if (change.indexable !== undefined) update.indexable = change.indexable ? 1 : 0;

  if (change.fields !== undefined) {
    const fields = fieldsWithVerification(change.fields, parseProfileFields(account.fields));
    if (fields.length > PROFILE_FIELDS_MAX) {
      problems.add('fields', 'Fields', 'ERR_TOO_LONG', `is too long (maximum is ${PROFILE_FIELDS_MAX} fields)`);
    }
    if (fields.some((f) => length(f.name) > PROFILE_FIELD_NAME_MAX)) {
      problems.add('fields.name', 'Field name', 'ERR_TOO_LONG', `is too long (maximum is ${PROFILE_FIELD_NAME_MAX} characters)`);
    }
    if (fields.some((f) => length(f.value_source ?? '') > PROFILE_FIELD_VALUE_MAX)) {
      problems.add('fields.value', 'Field value', 'ERR_TOO_LONG', `is too long (maximum is ${PROFILE_FIELD_VALUE_MAX} characters)`);
    }
    update.fields = JSON.stringify(fields);
  }

  if (change.attribution_domains !== undefined) {
    const hosts = change.attribution_domains.filter((d) => d.trim() !== '').map((d) => ({ given: d, host: normalizeHost(d) }));
    if (hosts.length > ATTRIBUTION_DOMAINS_MAX) {
      problems.add('attribution_domains', 'Attribution domains', 'ERR_TOO_LONG', `is too long (maximum is ${ATTRIBUTION_DOMAINS_MAX} domains)`);
    }
    const bad = hosts.find((h) => h.host === null);
    if (bad) problems.add('attribution_domains', 'Attribution domains', 'ERR_INVALID', `contains an invalid domain: ${bad.given}`);
    update.attribution_domains = JSON.stringify([...new Set(hosts.map((h) => h.host ?? ''))]);
  }

  const settings: Partial<UserSettings> = {};
  const source = change.source;
  if (source?.privacy !== undefined) {
    // Mastodon lets the default be public, unlisted or private, never direct.
    if (['public', 'unlisted', 'private'].includes(source.privacy)) settings.default_privacy = source.privacy as UserSettings['default_privacy'];
    else problems.add('source.privacy', 'Default privacy', 'ERR_INCLUSION', 'is not included in the list');
  }
  if (source?.sensitive !== undefined) settings.default_sensitive = source.sensitive;
  if (source?.language !== undefined) {
    const language = source.language === null ? '' : source.language.trim().toLowerCase();
    if (language === '') settings.default_language = null;
    else if (isLanguageCode(language)) settings.default_language = language;
    else problems.add('source.language', 'Default language', 'ERR_INCLUSION', 'is not included in the list');
  }
  if (source?.quote_policy !== undefined) {
    if (['public', 'followers', 'nobody'].includes(source.quote_policy)) settings.default_quote_policy = source.quote_policy as QuotePolicy;
    else problems.add('source.quote_policy', 'Default quote policy', 'ERR_INCLUSION', 'is not included in the list');
  }

  problems.throwIfAny();
  if (change.images) Object.assign(update, change.images);

  const updated = deps.db.transaction(() => {
    updateAccount(deps.db, account.id, { ...update, updated_at: now() });
    if (Object.keys(settings).length > 0) updateUserSettings(deps, user.id, settings);
    return findAccountById(deps.db, account.id);
  });
  if (!updated) throw notFound();
  deps.events.emit('account.updated', { accountId: account.id });
  // Unlocking accepts the pending follow requests, except those from silenced accounts.
  if (account.locked === 1 && updated.locked === 0) acceptPendingRequestsOnUnlock(deps, account.id);
  return updated;
}
