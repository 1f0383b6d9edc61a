import { findReportsByIds } from '../../db/repos/reports.js';
import { isoTime } from '../../util/clock.js';
import { presentAdminAccounts } from '../admin/accounts-view.js';
import { presentAdminReports } from '../admin/reports.js';
import type { Deps } from '../deps.js';
import { presentStatuses } from '../statuses/views.js';
import { renderTemplate } from './template.js';

/**
 * What a webhook receives, as Mastodon's WebhookService sends it: `{"event", "created_at",
 * "object"}`, the object being an Admin::Account (account events), an Admin::Report (report
 * events) or a Status as the public sees it (status events), serialized when the request is first
 * made. A webhook with a template gets the template rendered against that payload instead.
 */
export interface WebhookPayload {
  event: string;
  created_at: string;
  object: unknown;
}

/** The entity an event is about, as it is now; null when it is gone. */
function objectOf(deps: Deps, event: string, objectId: string): unknown {
  if (event.startsWith('account.')) return presentAdminAccounts(deps, [objectId])[0] ?? null;
  if (event.startsWith('report.')) {
    const row = findReportsByIds(deps.db, [objectId]).get(objectId);
    return row ? (presentAdminReports(deps, [row])[0] ?? null) : null;
  }
  if (event.startsWith('status.')) return presentStatuses(deps, [objectId], null)[0] ?? null;
  return null;
}

/** The payload of an event that happened at `at` (ms); null when its object is gone. */
export function webhookPayload(deps: Deps, event: string, objectId: string, at: number): WebhookPayload | null {
  const object = objectOf(deps, event, objectId);
  return object === null ? null : { event, created_at: isoTime(at), object };
}

/** The request body for a webhook: the payload as JSON, or its template rendered. */
export function webhookBody(payload: WebhookPayload, template: string | null): string {
  return template ? renderTemplate(template, payload) : JSON.stringify(payload);
}
