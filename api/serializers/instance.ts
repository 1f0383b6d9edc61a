import type { InstanceStats } from '../core/instance/stats.js';
import type { RuleRow } from '../db/repos/instance.js';
import type { Uris } from '../util/uris.js';
import { toMastodonAccount, type Account, type AccountView } from './account.js';
import { toMastodonRule, type Rule } from './rule.js';

/**
 * Everything the instance entities (v1, v2) and NodeInfo show, loaded by core/instance/info.ts.
 * Limits are not here: the serializers read them from core/instance/limits.ts, the one module
 * that both advertises and enforces them.
 */
export interface InstanceView {
  title: string;
  shortDescription: string;
  description: string;
  contactEmail: string;
  contact: AccountView | null;
  languages: string[];
  /** The version string clients parse (`4.5.0 (compatible; Hearth 0.1.0)`). */
  version: string;
  /** Hearth's own version (`0.1.0`), for NodeInfo. */
  softwareVersion: string;
  sourceUrl: string;
  /** Known repository and home page of the software, for NodeInfo 2.1; null when unknown. */
  repositoryUrl: string | null;
  homepageUrl: string | null;
  stats: InstanceStats;
  activeMonth: number;
  activeHalfyear: number;
  thumbnail: { url: string; blurhash: string | null; custom: boolean };
  registrations: { enabled: boolean; approvalRequired: boolean; reasonRequired: boolean; messageHtml: string | null };
  invitesEnabled: boolean;
  statusPageUrl: string | null;
  vapidPublicKey: string;
  rules: RuleRow[];
  /** The year whose annual report (Wrapstodon) users can make now, or null outside the campaign. */
  wrapstodon: string | null;
}

/** Limits as the instance entities list them (see core/instance/limits.ts). */
export interface InstanceLimits {
  statuses: { max_characters: number; max_media_attachments: number; characters_reserved_per_url: number };
  media: {
    supported_mime_types: readonly string[];
    description_limit: number;
    image_size_limit: number;
    image_matrix_limit: number;
    video_size_limit: number;
    video_frame_rate_limit: number;
    video_matrix_limit: number;
  };
  polls: { max_options: number; max_characters_per_option: number; min_expiration: number; max_expiration: number };
  accounts: { max_featured_tags: number; max_pinned_statuses: number };
}

/** Mastodon's V1::Instance entity. */
export interface InstanceV1 {
  uri: string;
  title: string;
  short_description: string;
  description: string;
  email: string;
  version: string;
  urls: { streaming_api: string };
  stats: { user_count: number; status_count: number; domain_count: number };
  thumbnail: string | null;
  languages: string[];
  registrations: boolean;
  approval_required: boolean;
  invites_enabled: boolean;
  configuration: {
    accounts: { max_featured_tags: number };
    statuses: InstanceLimits['statuses'];
    media_attachments: Omit<InstanceLimits['media'], 'description_limit'>;
    polls: InstanceLimits['polls'];
  };
  contact_account: Account | null;
  rules: Rule[];
}

/** Mastodon's (v2) Instance entity, as of the API version Hearth implements. */
export interface InstanceV2 {
  domain: string;
  title: string;
  version: string;
  source_url: string;
  description: string;
  usage: { users: { active_month: number } };
  thumbnail: { url: string; blurhash?: string; versions?: { '@1x': string } };
  icon: { src: string; size: string }[];
  languages: string[];
  configuration: {
    urls: { streaming: string; status: string | null; about: string | null; privacy_policy: string | null; terms_of_service: string | null };
    vapid: { public_key: string };
    accounts: InstanceLimits['accounts'];
    statuses: InstanceLimits['statuses'];
    media_attachments: InstanceLimits['media'];
    polls: InstanceLimits['polls'];
    translation: { enabled: boolean };
    timelines_access: Record<'live_feeds' | 'hashtag_feeds' | 'trending_link_feeds', { local: string; remote: string }>;
    limited_federation: boolean;
  };
  registrations: { enabled: boolean; approval_required: boolean; reason_required: boolean; message: string | null; min_age: number | null; url: string | null };
  api_versions: { mastodon: number };
  contact: { email: string; account: Account | null };
  rules: Rule[];
  /** The current annual-report campaign (its year), null when reports cannot be made (4.6). */
  wrapstodon: string | null;
}

/**
 * The Mastodon API version Hearth implements: 7, Mastodon 4.5's, which announces quote posts
 * (clients offer quoting only from 7 on).
 */
export const MASTODON_API_VERSION = 7;

/** The streaming API's base: the instance's own address with ws(s):// instead of http(s)://. */
export function streamingBase(uris: Uris): string {
  return uris.base.replace(/^http/, 'ws');
}

/** The deprecated v1 instance entity. */
export function toMastodonInstanceV1(view: InstanceView, limits: InstanceLimits, uris: Uris): InstanceV1 {
  const { description_limit: _unused, ...media } = limits.media;
  return {
    uri: uris.domain,
    title: view.title,
    short_description: view.shortDescription,
    description: view.description,
    email: view.contactEmail,
    version: view.version,
    urls: { streaming_api: streamingBase(uris) },
    stats: { user_count: view.stats.userCount, status_count: view.stats.statusCount, domain_count: view.stats.domainCount },
    thumbnail: view.thumbnail.url,
    languages: view.languages,
    registrations: view.registrations.enabled,
    approval_required: view.registrations.approvalRequired,
    invites_enabled: view.invitesEnabled,
    configuration: {
      accounts: { max_featured_tags: limits.accounts.max_featured_tags },
      statuses: { ...limits.statuses },
      media_attachments: { ...media },
      polls: { ...limits.polls },
    },
    contact_account: view.contact ? toMastodonAccount(view.contact, uris) : null,
    rules: view.rules.map(toMastodonRule),
  };
}

/** The v2 instance entity. */
export function toMastodonInstanceV2(view: InstanceView, limits: InstanceLimits, uris: Uris): InstanceV2 {
  const thumbnail: InstanceV2['thumbnail'] = { url: view.thumbnail.url };
  if (view.thumbnail.custom) {
    if (view.thumbnail.blurhash) thumbnail.blurhash = view.thumbnail.blurhash;
    thumbnail.versions = { '@1x': view.thumbnail.url };
  }
  const open = { local: 'public', remote: 'public' };
  return {
    domain: uris.domain,
    title: view.title,
    version: view.version,
    source_url: view.sourceUrl,
    description: view.shortDescription,
    usage: { users: { active_month: view.activeMonth } },
    thumbnail,
    // No icon is configured yet; clients fall back to the thumbnail or their own artwork.
    icon: [],
    languages: view.languages,
    configuration: {
      urls: {
        streaming: streamingBase(uris),
        status: view.statusPageUrl,
        // The web pages (about, privacy policy, terms) are not served by the instance yet; clients
        // read the same documents from /api/v1/instance/extended_description, privacy_policy and
        // terms_of_service.
        about: null,
        privacy_policy: null,
        terms_of_service: null,
      },
      vapid: { public_key: view.vapidPublicKey },
      accounts: { ...limits.accounts },
      statuses: { ...limits.statuses },
      media_attachments: { ...limits.media },
      polls: { ...limits.polls },
      translation: { enabled: false },
      timelines_access: { live_feeds: { ...open }, hashtag_feeds: { ...open }, trending_link_feeds: { ...open } },
      limited_federation: false,
    },
    registrations: {
      enabled: view.registrations.enabled,
      approval_required: view.registrations.approvalRequired,
      reason_required: view.registrations.reasonRequired,
      // The message explains closed registrations, so it is null while they are open.
      message: view.registrations.enabled ? null : view.registrations.messageHtml,
      min_age: null,
      url: null,
    },
    api_versions: { mastodon: MASTODON_API_VERSION },
    contact: { email: view.contactEmail, account: view.contact ? toMastodonAccount(view.contact, uris) : null },
    rules: view.rules.map(toMastodonRule),
    wrapstodon: view.wrapstodon,
  };
}

/** The NodeInfo schema versions served. */
export type NodeInfoVersion = '2.0' | '2.1';

/** A NodeInfo 2.0 or 2.1 document (https://nodeinfo.diaspora.software). */
export interface NodeInfo {
  version: NodeInfoVersion;
  software: { name: string; version: string; repository?: string; homepage?: string };
  protocols: string[];
  services: { inbound: string[]; outbound: string[] };
  openRegistrations: boolean;
  usage: { users: { total: number; activeMonth: number; activeHalfyear: number }; localPosts: number };
  metadata: { nodeName: string; nodeDescription: string };
}

/** The NodeInfo document; 2.1 adds the software's repository and home page, when known. */
export function toNodeInfo(view: InstanceView, version: NodeInfoVersion): NodeInfo {
  const software: NodeInfo['software'] = { name: 'hearth', version: view.softwareVersion };
  if (version === '2.1') {
    if (view.repositoryUrl) software.repository = view.repositoryUrl;
    if (view.homepageUrl) software.homepage = view.homepageUrl;
  }
  return {
    version,
    software,
    protocols: ['activitypub'],
    services: { inbound: [], outbound: [] },
    openRegistrations: view.registrations.enabled,
    usage: {
      users: { total: view.stats.userCount, activeMonth: view.activeMonth, activeHalfyear: view.activeHalfyear },
      localPosts: view.stats.statusCount,
    },
    metadata: { nodeName: view.title, nodeDescription: view.shortDescription },
  };
}
