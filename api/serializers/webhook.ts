import type { WebhookRow } from '../db/repos/webhooks.js';
import { isoTime } from '../util/clock.js';

/**
 * A webhook as the admin API shows it (Mastodon manages webhooks in its web admin only; these are
 * the fields of its Webhook model): the endpoint, the events it receives, the secret that signs
 * its payloads, whether it is enabled, and its optional body template.
 */
export interface MastodonAdminWebhook {
  id: string;
  url: string;
  events: string[];
  secret: string;
  enabled: boolean;
  template: string | null;
  created_at: string;
  updated_at: string;
}

/** The events of a row (a JSON array of names). */
export function webhookEvents(row: Pick<WebhookRow, 'events'>): string[] {
  const value: unknown = JSON.parse(row.events);
  return Array.isArray(value) ? value.filter((e): e is string => typeof e === 'string') : [];
}

/** The admin entity of a webhook row. */
export function toMastodonAdminWebhook(row: WebhookRow): MastodonAdminWebhook {
  return {
    id: row.id,
    url: row.url,
    events: webhookEvents(row),
    secret: row.secret,
    enabled: row.enabled === 1,
    template: row.template,
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}
