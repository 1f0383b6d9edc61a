import { findAccountByHandle, findAccountById } from '../../db/repos/accounts.js';
import { findOwnerAccountId } from '../../db/repos/instance.js';
import { getSetting, setSetting } from '../../db/repos/settings.js';
import { now } from '../../util/clock.js';
import { unprocessable } from '../../util/errors.js';
import type { Deps } from '../deps.js';
import { isLanguageCode } from '../accounts/languages.js';

/**
 * Instance settings an administrator chooses (title, descriptions, contact, documents…), kept in
 * the `settings` table under `instance.*` keys. Values are typed by `InstanceSettings`; each has a
 * default used until it is set. Registration mode and the peers/activity switches are not here:
 * they come from the configuration (`config.registrations`, `config.peersApi`, `config.activityApi`).
 */

/** A Markdown document with the time it was last changed (ms). */
export interface StoredDocument {
  text: string;
  updated_at: number;
}

/** Terms of service: Markdown text and the date (YYYY-MM-DD) they take effect. */
export interface StoredTerms {
  text: string;
  effective_date: string;
}

/** An uploaded thumbnail: storage key of the image and, when known, its blurhash. */
export interface StoredThumbnail {
  file: string;
  blurhash: string | null;
}

/** Who may read `GET /api/v1/instance/domain_blocks` (Mastodon's `show_domain_blocks`). */
export type DomainBlocksVisibility = 'disabled' | 'users' | 'all';

/** Every instance setting and its type. */
export interface InstanceSettings {
  title: string;
  /** Plain text, shown as the instance's description in v2 and `short_description` in v1. */
  short_description: string;
  /** The longer v1 `description` (HTML allowed, as Mastodon's legacy `site_description`). */
  description: string;
  /** The about page, Markdown; null when never written. */
  extended_description: StoredDocument | null;
  contact_email: string;
  /** Account shown as the contact; null means the owner's account. */
  contact_account_id: string | null;
  /** Markdown with `%{domain}` placeholders; null means the built-in policy. */
  privacy_policy: StoredDocument | null;
  terms_of_service: StoredTerms | null;
  status_page_url: string | null;
  /** Null means the default thumbnail the instance serves itself. */
  thumbnail: StoredThumbnail | null;
  /** ISO 639 codes of the instance's primary languages. */
  languages: string[];
  /** Shown when registrations are closed (Markdown); null for none. */
  registrations_message: string | null;
  /** Whether sign-ups awaiting approval must give a reason. */
  require_invite_text: boolean;
  /** Whether users may invite people (Mastodon's `invites_enabled`). */
  invites_enabled: boolean;
  show_domain_blocks: DomainBlocksVisibility;
  /**
   * Where the source code of this instance's software is published (the AGPL offer). Null uses
   * the repository package.json declares.
   */
  source_url: string | null;
}

export type InstanceSettingKey = keyof InstanceSettings;

/** The values used until a setting is set. */
export const INSTANCE_DEFAULTS: Readonly<InstanceSettings> = {
  title: 'Hearth',
  short_description: '',
  description: '',
  extended_description: null,
  contact_email: '',
  contact_account_id: null,
  privacy_policy: null,
  terms_of_service: null,
  status_page_url: null,
  thumbnail: null,
  languages: ['en'],
  registrations_message: null,
  require_invite_text: false,
  invites_enabled: false,
  show_domain_blocks: 'disabled',
  source_url: null,
};

const PREFIX = 'instance.';

/** Every instance setting, defaults filled in, read in one query. */
export function loadInstanceSettings(deps: Deps): InstanceSettings {
  const rows = deps.db.query<{ key: string; value: string }>("SELECT key, value FROM settings WHERE key LIKE 'instance.%'").all();
  const stored = new Map(rows.map((r) => [r.key.slice(PREFIX.length), r.value]));
  const out: Record<string, unknown> = { ...INSTANCE_DEFAULTS };
  for (const key of Object.keys(INSTANCE_DEFAULTS)) {
    const raw = stored.get(key);
    if (raw !== undefined) out[key] = JSON.parse(raw) as unknown;
  }
  return out as unknown as InstanceSettings;
}

/** One instance setting, or its default. */
export function getInstanceSetting<K extends InstanceSettingKey>(deps: Deps, key: K): InstanceSettings[K] {
  const value = getSetting<InstanceSettings[K]>(deps.db, PREFIX + key);
  return value === undefined ? INSTANCE_DEFAULTS[key] : value;
}

/** When the instance was set up (ms). */
export function instanceCreatedAt(deps: Deps): number {
  return getSetting<number>(deps.db, `${PREFIX}created_at`) ?? 0;
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** Checks a value for a setting; throws 422 naming the problem. */
function validate<K extends InstanceSettingKey>(deps: Deps, key: K, value: InstanceSettings[K]): void {
  const v: unknown = value;
  switch (key) {
    case 'title':
      if (typeof v !== 'string' || v.trim() === '') throw unprocessable("Title can't be blank");
      if (v.length > 255) throw unprocessable('Title is too long (maximum is 255 characters)');
      return;
    case 'short_description':
      if (typeof v !== 'string' || v.length > 200) throw unprocessable('Short description is too long (maximum is 200 characters)');
      return;
    case 'description':
    case 'registrations_message':
      if (v !== null && typeof v !== 'string') throw unprocessable(`${key} must be text`);
      return;
    case 'contact_email':
      if (typeof v !== 'string' || (v !== '' && !EMAIL.test(v))) throw unprocessable('Contact e-mail is invalid');
      return;
    case 'contact_account_id': {
      if (v === null) return;
      const account = typeof v === 'string' ? findAccountById(deps.db, v) : undefined;
      if (!account || account.domain !== null) throw unprocessable('Contact account must be a local account');
      return;
    }
    case 'status_page_url':
    case 'source_url':
      if (v !== null && (typeof v !== 'string' || !isHttpUrl(v))) throw unprocessable(`${key} must be an http(s) URL`);
      return;
    case 'languages':
      if (!Array.isArray(v) || v.length === 0 || !v.every((code) => typeof code === 'string' && isLanguageCode(code))) {
        throw unprocessable('Languages must be a non-empty list of supported language codes');
      }
      return;
    case 'extended_description':
    case 'privacy_policy': {
      const doc = v as StoredDocument | null;
      if (doc !== null && (typeof doc.text !== 'string' || typeof doc.updated_at !== 'number')) throw unprocessable(`${key} is invalid`);
      return;
    }
    case 'terms_of_service': {
      const terms = v as StoredTerms | null;
      if (terms !== null && (typeof terms.text !== 'string' || terms.text.trim() === '' || !DATE.test(terms.effective_date))) {
        throw unprocessable('Terms of service need a text and an effective date (YYYY-MM-DD)');
      }
      return;
    }
    case 'thumbnail': {
      const thumb = v as StoredThumbnail | null;
      if (thumb !== null && (typeof thumb.file !== 'string' || thumb.file === '')) throw unprocessable('Thumbnail needs a stored file');
      return;
    }
    case 'require_invite_text':
    case 'invites_enabled':
      if (typeof v !== 'boolean') throw unprocessable(`${key} must be true or false`);
      return;
    case 'show_domain_blocks':
      if (v !== 'disabled' && v !== 'users' && v !== 'all') throw unprocessable('show_domain_blocks must be disabled, users or all');
      return;
    default:
      throw unprocessable(`unknown instance setting: ${String(key)}`);
  }
}

/** Validates and stores one instance setting. */
export function setInstanceSetting<K extends InstanceSettingKey>(deps: Deps, key: K, value: InstanceSettings[K]): void {
  validate(deps, key, value);
  setSetting(deps.db, PREFIX + key, value);
}

/** Stores the about page (Markdown); an empty text clears it. */
export function setExtendedDescription(deps: Deps, text: string): void {
  setInstanceSetting(deps, 'extended_description', text.trim() === '' ? null : { text, updated_at: now() });
}

/** Stores a custom privacy policy (Markdown, `%{domain}` allowed); null restores the built-in one. */
export function setPrivacyPolicy(deps: Deps, text: string | null): void {
  setInstanceSetting(deps, 'privacy_policy', text === null || text.trim() === '' ? null : { text, updated_at: now() });
}

/** Stores terms of service taking effect on `effectiveDate` (today when omitted); null removes them. */
export function setTermsOfService(deps: Deps, text: string | null, effectiveDate?: string): void {
  if (text === null || text.trim() === '') {
    setInstanceSetting(deps, 'terms_of_service', null);
    return;
  }
  setInstanceSetting(deps, 'terms_of_service', { text, effective_date: effectiveDate ?? new Date(now()).toISOString().slice(0, 10) });
}

/** Makes a local account (by username) the contact; null returns to the default, the owner. */
export function setContactAccount(deps: Deps, username: string | null): void {
  if (username === null) {
    setInstanceSetting(deps, 'contact_account_id', null);
    return;
  }
  const account = findAccountByHandle(deps.db, username.replace(/^@/, ''), null);
  if (!account) throw unprocessable(`no local account named ${username}`);
  setInstanceSetting(deps, 'contact_account_id', account.id);
}

/** The contact account's id: the chosen one if it still exists, else the owner's, else none. */
export function contactAccountId(deps: Deps, settings: InstanceSettings = loadInstanceSettings(deps)): string | null {
  const chosen = settings.contact_account_id;
  if (chosen && findAccountById(deps.db, chosen)) return chosen;
  return findOwnerAccountId(deps.db) ?? null;
}

/** Settings a command line may set from text, with how the text is read. */
export const CLI_SETTINGS = [
  'title',
  'short_description',
  'description',
  'extended_description',
  'contact_email',
  'contact',
  'privacy_policy',
  'terms_of_service',
  'status_page_url',
  'languages',
  'registrations_message',
  'require_invite_text',
  'invites_enabled',
  'show_domain_blocks',
  'source_url',
] as const;

export type CliSettingName = (typeof CLI_SETTINGS)[number];

/**
 * Sets a setting from command-line text (`hearth instance set NAME VALUE`): an empty value
 * clears optional settings; `languages` is comma-separated; booleans take true/false/yes/no/1/0;
 * `contact` is a local username; documents are Markdown.
 */
export function setInstanceSettingFromText(deps: Deps, name: string, text: string): void {
  const value = text.trim();
  const orNull = value === '' ? null : value;
  const bool = (): boolean => {
    if (/^(true|yes|on|1)$/i.test(value)) return true;
    if (/^(false|no|off|0)$/i.test(value)) return false;
    throw unprocessable(`${name} must be true or false`);
  };
  switch (name as CliSettingName) {
    case 'title':
    case 'short_description':
    case 'description':
    case 'contact_email':
      return setInstanceSetting(deps, name as 'title', value);
    case 'extended_description':
      return setExtendedDescription(deps, text);
    case 'contact':
      return setContactAccount(deps, orNull);
    case 'privacy_policy':
      return setPrivacyPolicy(deps, orNull);
    case 'terms_of_service':
      return setTermsOfService(deps, orNull);
    case 'status_page_url':
    case 'source_url':
    case 'registrations_message':
      return setInstanceSetting(deps, name as 'status_page_url', orNull);
    case 'languages':
      return setInstanceSetting(deps, 'languages', value.split(',').map((l) => l.trim().toLowerCase()).filter(Boolean));
    case 'require_invite_text':
    case 'invites_enabled':
      return setInstanceSetting(deps, name as 'invites_enabled', bool());
    case 'show_domain_blocks':
      return setInstanceSetting(deps, 'show_domain_blocks', value as DomainBlocksVisibility);
    default:
      throw unprocessable(`unknown instance setting: ${name} (one of ${CLI_SETTINGS.join(', ')})`);
  }
}

/**
 * The current value of every command-line setting as one line of text each, for a command that
 * shows the settings (`hearth instance show`): documents are abbreviated to their first line.
 */
export function instanceSettingsAsText(deps: Deps): Record<CliSettingName, string> {
  const s = loadInstanceSettings(deps);
  const firstLine = (text: string | undefined) => {
    const line = (text ?? '').trim().split('\n')[0] ?? '';
    return line.length > 60 ? `${line.slice(0, 59)}…` : line;
  };
  const contactId = contactAccountId(deps, s);
  const contact = contactId ? findAccountById(deps.db, contactId) : undefined;
  return {
    title: s.title,
    short_description: s.short_description,
    description: firstLine(s.description),
    extended_description: firstLine(s.extended_description?.text),
    contact_email: s.contact_email,
    contact: contact ? `${contact.username}${s.contact_account_id ? '' : ' (the owner, by default)'}` : '',
    privacy_policy: s.privacy_policy ? firstLine(s.privacy_policy.text) : '(built-in)',
    terms_of_service: s.terms_of_service ? `${firstLine(s.terms_of_service.text)} (effective ${s.terms_of_service.effective_date})` : '',
    status_page_url: s.status_page_url ?? '',
    languages: s.languages.join(','),
    registrations_message: firstLine(s.registrations_message ?? ''),
    require_invite_text: String(s.require_invite_text),
    invites_enabled: String(s.invites_enabled),
    show_domain_blocks: s.show_domain_blocks,
    source_url: s.source_url ?? '',
  };
}
