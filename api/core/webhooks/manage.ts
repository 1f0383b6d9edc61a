import { randomBytes } from 'node:crypto';
import type { UserRow } from '../../db/repos/users.js';
import { allWebhooks, deleteWebhook, findWebhook, insertWebhook, updateWebhook, type WebhookRow } from '../../db/repos/webhooks.js';
import { toMastodonAdminWebhook, webhookEvents, type MastodonAdminWebhook } from '../../serializers/webhook.js';
import { now } from '../../util/clock.js';
import { notFound, unprocessable } from '../../util/errors.js';
import { isId, newId } from '../../util/ids.js';
import { PERMISSION } from '../../util/permissions.js';
import type { Deps } from '../deps.js';
import { userHas } from '../roles/access.js';
import { templateIsValid } from './template.js';

/**
 * Webhooks as staff manage them (`/api/v1/admin/webhooks`; Mastodon does it in its web admin, on
 * its Webhook model): an endpoint URL, the events it receives, a secret that signs each payload,
 * enabled or not, and an optional body template. Callers check Manage Webhooks first.
 */

/** Mastodon's webhook events, and the permission one must hold to subscribe an endpoint to each. */
export const WEBHOOK_EVENTS: Readonly<Record<string, number>> = {
  'account.approved': PERMISSION.manageUsers,
  'account.created': PERMISSION.manageUsers,
  'account.updated': PERMISSION.manageUsers,
  'report.created': PERMISSION.manageReports,
  'report.updated': PERMISSION.manageReports,
  'status.created': PERMISSION.viewFeeds,
  'status.updated': PERMISSION.viewFeeds,
};

/** The longest URL accepted. */
const MAX_URL_LENGTH = 2048;

/** What creating or editing a webhook gives (what is left out stays as it is on an edit). */
export interface WebhookInput {
  url?: string | undefined;
  events?: readonly string[] | undefined;
  /** null or '' removes the template. */
  template?: string | null | undefined;
}

/** A new secret: 20 random bytes in hex, as Mastodon makes them. */
function newSecret(): string {
  return randomBytes(20).toString('hex');
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Checks a webhook's fields as Mastodon validates its model, every problem at once (422 listing
 * them): a URL (http or https), at least one event, every event one of WEBHOOK_EVENTS and one
 * whose permission the staff member holds, and a well-formed template.
 */
function validate(deps: Deps, user: UserRow, url: string, events: readonly string[], template: string | null): void {
  const problems: string[] = [];
  if (url.trim() === '') problems.push("Url can't be blank");
  else if (url.length > MAX_URL_LENGTH || !isHttpUrl(url)) problems.push('Url is invalid');
  if (events.length === 0) problems.push("Events can't be blank");
  else if (!events.every((e) => e in WEBHOOK_EVENTS)) problems.push('Events is invalid');
  else if (!events.every((e) => userHas(deps, user, WEBHOOK_EVENTS[e] ?? 0))) problems.push("Events cannot include events you don't have the rights to");
  if (template !== null && !templateIsValid(template)) problems.push('Template is invalid');
  if (problems.length > 0) throw unprocessable(problems.join(', '));
}

function load(deps: Deps, id: string): WebhookRow {
  const row = isId(id) ? findWebhook(deps.db, id) : undefined;
  if (!row) throw notFound();
  return row;
}

/** Every webhook, oldest first. */
export function listWebhooks(deps: Deps): MastodonAdminWebhook[] {
  return allWebhooks(deps.db).map(toMastodonAdminWebhook);
}

/** One webhook, or 404. */
export function getWebhook(deps: Deps, id: string): MastodonAdminWebhook {
  return toMastodonAdminWebhook(load(deps, id));
}

/** Registers an endpoint, enabled, with a new secret (422 for invalid fields, nothing written). */
export function createWebhook(deps: Deps, user: UserRow, input: WebhookInput): MastodonAdminWebhook {
  const url = input.url?.trim() ?? '';
  const events = [...new Set(input.events ?? [])];
  const template = input.template ? input.template : null;
  validate(deps, user, url, events, template);
  const at = now();
  const row: WebhookRow = { id: newId(at), url, events: JSON.stringify(events), secret: newSecret(), enabled: 1, template, created_at: at, updated_at: at };
  deps.db.transaction(() => insertWebhook(deps.db, row));
  return toMastodonAdminWebhook(row);
}

/** Changes a webhook's URL, events or template (those given), checked as on creation. */
export function editWebhook(deps: Deps, user: UserRow, id: string, input: WebhookInput): MastodonAdminWebhook {
  const row = load(deps, id);
  const url = input.url === undefined ? row.url : input.url.trim();
  const events = input.events === undefined ? webhookEvents(row) : [...new Set(input.events)];
  const template = input.template === undefined ? row.template : input.template ? input.template : null;
  validate(deps, user, url, events, template);
  const next: WebhookRow = { ...row, url, events: JSON.stringify(events), template, updated_at: now() };
  deps.db.transaction(() => updateWebhook(deps.db, next));
  return toMastodonAdminWebhook(next);
}

/** Deletes a webhook and what was queued for it; 404 when unknown. */
export function removeWebhook(deps: Deps, id: string): void {
  if (!isId(id) || !deps.db.transaction(() => deleteWebhook(deps.db, id))) throw notFound();
}

/** Enables or disables a webhook: a disabled one is sent nothing, not even what was queued for it. */
export function setWebhookEnabled(deps: Deps, id: string, enabled: boolean): MastodonAdminWebhook {
  const row = load(deps, id);
  const next: WebhookRow = { ...row, enabled: enabled ? 1 : 0, updated_at: now() };
  deps.db.transaction(() => updateWebhook(deps.db, next));
  return toMastodonAdminWebhook(next);
}

/** Gives a webhook a new secret; requests from now on (retries included) are signed with it. */
export function rotateWebhookSecret(deps: Deps, id: string): MastodonAdminWebhook {
  const row = load(deps, id);
  const next: WebhookRow = { ...row, secret: newSecret(), updated_at: now() };
  deps.db.transaction(() => updateWebhook(deps.db, next));
  return toMastodonAdminWebhook(next);
}
