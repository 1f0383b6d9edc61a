import { listLocalEmojiRows } from '../../db/repos/instance.js';
import type { CustomEmojiRow } from '../../db/repos/accounts.js';
import type { InstanceLimits, InstanceView } from '../../serializers/instance.js';
import { HEARTH_VERSION, HOMEPAGE_URL, SOURCE_REPOSITORY_URL, VERSION_STRING } from '../../util/version.js';
import { loadAccountViews } from '../accounts/views.js';
import { currentCampaign } from '../annual-reports/reports.js';
import type { Deps } from '../deps.js';
import { FreshCache } from '../fresh-cache.js';
import { vapidPublicKey } from '../oauth/vapid.js';
import { registrationsMessageHtml } from './documents.js';
import { ACCOUNT_LIMITS, MEDIA_LIMITS, POLL_LIMITS, STATUS_LIMITS, SUPPORTED_MIME_TYPES } from './limits.js';
import { listRules } from './rules.js';
import { contactAccountId, loadInstanceSettings } from './settings.js';
import { activeUserCount, instanceStats } from './stats.js';
import { DEFAULT_THUMBNAIL_PATH } from './thumbnail.js';
import { publicDomainBlockList, type PublicDomainBlock } from '../federation/instance-domains.js';

/** The limits the instance entities advertise, all from core/instance/limits.ts. */
export function instanceLimits(): InstanceLimits {
  return {
    statuses: { ...STATUS_LIMITS },
    media: { supported_mime_types: SUPPORTED_MIME_TYPES, ...MEDIA_LIMITS },
    polls: { ...POLL_LIMITS },
    accounts: { ...ACCOUNT_LIMITS },
  };
}

/** How people may join, from `config.registrations`. */
export function registrationState(deps: Deps): { enabled: boolean; approvalRequired: boolean } {
  const mode = deps.config.registrations;
  return { enabled: mode !== 'closed', approvalRequired: mode === 'approval' };
}

/**
 * Where this software's source is published (the AGPL offer): the administrator's setting, else
 * the repository or home page package.json declares, else the instance's own address, the one
 * place a visitor can ask for it. No outside URL is made up.
 */
export function sourceUrl(deps: Deps, configured: string | null): string {
  return configured ?? SOURCE_REPOSITORY_URL ?? HOMEPAGE_URL ?? `${deps.uris.base}/`;
}

/** Loads everything the instance entities and NodeInfo show, in a handful of queries. */
export function loadInstanceView(deps: Deps): InstanceView {
  const settings = loadInstanceSettings(deps);
  const contactId = contactAccountId(deps, settings);
  const contact = contactId ? (loadAccountViews(deps, [contactId]).get(contactId) ?? null) : null;
  const registrations = registrationState(deps);
  const thumb = settings.thumbnail;
  return {
    title: settings.title,
    shortDescription: settings.short_description,
    description: settings.description,
    contactEmail: settings.contact_email,
    contact,
    languages: settings.languages,
    version: VERSION_STRING,
    softwareVersion: HEARTH_VERSION,
    sourceUrl: sourceUrl(deps, settings.source_url),
    repositoryUrl: settings.source_url ?? SOURCE_REPOSITORY_URL,
    homepageUrl: HOMEPAGE_URL,
    stats: instanceStats(deps),
    activeMonth: activeUserCount(deps, 4),
    activeHalfyear: activeUserCount(deps, 24),
    thumbnail: thumb
      ? { url: deps.uris.fileUrl(thumb.file), blurhash: thumb.blurhash, custom: true }
      : { url: deps.uris.url(DEFAULT_THUMBNAIL_PATH), blurhash: null, custom: false },
    registrations: {
      ...registrations,
      // Asking for a reason only makes sense when someone reads it before approving.
      reasonRequired: registrations.approvalRequired && settings.require_invite_text,
      messageHtml: registrationsMessageHtml(deps, settings),
    },
    invitesEnabled: settings.invites_enabled,
    statusPageUrl: settings.status_page_url,
    vapidPublicKey: vapidPublicKey(deps),
    rules: listRules(deps),
    wrapstodon: campaignYear(),
  };
}

// The campaign depends on the date; the view is reloaded at least every minute (see below).
function campaignYear(): string | null {
  const year = currentCampaign();
  return year === null ? null : String(year);
}

// Its active-user counts depend on the time: a minute at most.
const views = new FreshCache<InstanceView>(60_000);

/**
 * The instance view as `loadInstanceView` loads it, kept while nothing has been written to the
 * database (settings, rules, emojis, the contact account, users, statuses, remote accounts: any
 * change, see FreshCache), the public address is the same, and for a minute at most. The same
 * frozen object is returned while it is valid, so callers may cache what they render from it by
 * identity.
 */
export function currentInstanceView(deps: Deps): InstanceView {
  return views.get(deps, 'view', () => loadInstanceView(deps));
}

/** The instance's own custom emojis that are enabled, by shortcode. */
export function listCustomEmojis(deps: Deps): CustomEmojiRow[] {
  return listLocalEmojiRows(deps.db);
}

/** A domain block as `GET /api/v1/instance/domain_blocks` shows it (Mastodon's DomainBlock). */
export type { PublicDomainBlock } from '../federation/instance-domains.js';

/**
 * The domain blocks the instance publishes: the instance's domain blocks that limit or suspend
 * (the rule set of `hearth domain` and the admin API; see publicDomainBlockList). Who may see the
 * list is the `show_domain_blocks` setting.
 */
export function publicDomainBlocks(deps: Deps): PublicDomainBlock[] {
  return publicDomainBlockList(deps);
}
