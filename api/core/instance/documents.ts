import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { renderMarkdown } from './markdown.js';
import { loadInstanceSettings, type InstanceSettings } from './settings.js';

/**
 * The instance's documents (about page, privacy policy, terms of service), stored as Markdown and
 * served as HTML with their update time, as Mastodon serves them.
 */

/** A rendered document. */
export interface RenderedDocument {
  /** ms since the epoch. */
  updatedAt: number;
  html: string;
}

/** Terms of service as served. */
export interface RenderedTerms {
  effectiveDate: string;
  effective: boolean;
  html: string;
  succeededBy: string | null;
}

/** When the built-in privacy policy below was last changed. */
export const DEFAULT_PRIVACY_POLICY_UPDATED_AT = Date.UTC(2026, 10, 22);

/** The privacy policy used until an administrator writes one; `%{domain}` is this instance. */
export const DEFAULT_PRIVACY_POLICY = `# Privacy policy of %{domain}

%{domain} is a Hearth instance: a small fediverse server that runs on its owner's own computer (or
a server they control) for themselves and the people they invite. This page says what it keeps,
where, and what leaves it.

## What is kept

- **Your account**: your username, e-mail address, a hash of your password (never the password
  itself), your profile, and your settings.
- **What you write and upload**: your posts, media, polls, lists, filters and bookmarks, and the
  accounts you follow, mute or block.
- **Sign-in records**: the applications you authorised and when their access tokens were last
  used, so you can review and revoke them.

All of it is stored in one database on the machine that runs %{domain}. Nothing is sent to
advertisers or analytics services.

## What leaves this instance

The fediverse works by sending posts to other servers:

- **Public and unlisted posts**, your profile and the lists of who you follow and who follows
  you are sent to, and may be stored by, the servers of your followers and of anyone who looks
  you up.
- **Followers-only posts** are sent to the servers of your followers.
- **Direct messages** are sent to the servers of the people mentioned in them.

The people who run those servers can read what is delivered to them, and recipients can copy it.
Posts are not end-to-end encrypted: do not share anything you could not afford to have read by
others.

If %{domain} reaches the internet through a relay, the relay keeps deliveries addressed to this
instance and copies of its public documents while the computer running it is offline.

## Deleting

You can delete your posts and your account. When you do, %{domain} asks the other servers that
received them to delete their copies too; most do, but none can be forced to.

## Questions

Ask the administrator of %{domain}.
`;

function render(text: string, domain: string): string {
  return renderMarkdown(text.replaceAll('%{domain}', domain));
}

/** The privacy policy: the administrator's, or the built-in one. */
export function privacyPolicy(deps: Deps, settings: InstanceSettings = loadInstanceSettings(deps)): RenderedDocument {
  const custom = settings.privacy_policy;
  return custom
    ? { updatedAt: custom.updated_at, html: render(custom.text, deps.uris.domain) }
    : { updatedAt: DEFAULT_PRIVACY_POLICY_UPDATED_AT, html: render(DEFAULT_PRIVACY_POLICY, deps.uris.domain) };
}

/** The about page as served: its update time is null while none was written. */
export interface ExtendedDescriptionDocument {
  /** ms since the epoch, or null before an administrator writes one. */
  updatedAt: number | null;
  html: string;
}

/**
 * The about page; empty content and no update time until one is written (Mastodon's
 * ExtendedDescription has no `updated_at` without its setting).
 */
export function extendedDescription(deps: Deps, settings: InstanceSettings = loadInstanceSettings(deps)): ExtendedDescriptionDocument {
  const doc = settings.extended_description;
  return doc ? { updatedAt: doc.updated_at, html: render(doc.text, deps.uris.domain) } : { updatedAt: null, html: '' };
}

/**
 * The terms of service, or null when none were written. Only one version is kept, so a `date`
 * other than its effective date finds nothing.
 */
export function termsOfService(deps: Deps, date?: string, settings: InstanceSettings = loadInstanceSettings(deps)): RenderedTerms | null {
  const terms = settings.terms_of_service;
  if (!terms) return null;
  if (date !== undefined && date !== terms.effective_date) return null;
  const today = new Date(now()).toISOString().slice(0, 10);
  return { effectiveDate: terms.effective_date, effective: terms.effective_date <= today, html: render(terms.text, deps.uris.domain), succeededBy: null };
}

/** The closed-registrations message as HTML, or null when none is set. */
export function registrationsMessageHtml(deps: Deps, settings: InstanceSettings): string | null {
  const text = settings.registrations_message;
  return text && text.trim() !== '' ? render(text, deps.uris.domain) : null;
}
