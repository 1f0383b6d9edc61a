import { withRelaxedDurability } from '../../db/connection.js';
import {
  deleteWebhookDelivery,
  dueWebhookDeliveries,
  enabledWebhookIdsFor,
  findWebhooksByIds,
  insertWebhookDeliveries,
  leaseWebhookDeliveries,
  rescheduleWebhookDelivery,
  setWebhookDeliveryBody,
  type WebhookDeliveryRow,
} from '../../db/repos/webhooks.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { queuePump, type PumpState } from '../jobs/queue-pump.js';
import { webhookBody, webhookPayload } from './payload.js';
import { sendWebhook, type WebhookAnswer } from './send.js';

/**
 * Webhook delivery: a durable queue in `webhook_deliveries`, one row per event and webhook. An
 * event queues its rows (for the enabled webhooks that subscribe to it) and sending starts on the
 * next turn of the event loop, off the request; the job scheduler picks up what is due again
 * (retries, and what a restart left). As Mastodon's delivery worker: a 2xx ends a request, so does
 * a 4xx other than 401, 408 and 429 (the endpoint will not take it: given up and logged); other
 * answers and network errors are retried with growing pauses, five times. A webhook disabled or
 * deleted meanwhile is sent nothing more.
 */

/** Attempts per request at most: the first and five retries. */
export const MAX_WEBHOOK_ATTEMPTS = 6;

/** Requests in flight at once per instance. */
const MAX_IN_FLIGHT = 16;

/** While a request is in flight its row is due only after this; a restart sends it again then. */
const LEASE_MS = 5 * 60_000;

/**
 * The pause before attempt `attempts + 1`, after `attempts` failed ones, as Sidekiq spaces its
 * retries: (n⁴ + 15 + a random part up to 10·(n + 1)) seconds for the n-th retry (n from 0).
 */
export function webhookRetryDelayMs(attempts: number): number {
  const n = Math.max(0, attempts - 1);
  return (n ** 4 + 15 + Math.floor(Math.random() * 10 * (n + 1))) * 1000;
}

const webhookPump = queuePump('webhook delivery', pump);

/**
 * Queues an event for the enabled webhooks that subscribe to it, and starts sending. `applies`
 * (whether the object is one webhooks hear of, e.g. a local status) is asked only when some
 * webhook wants the event, so that events nobody subscribed to cost one small query.
 */
export function queueWebhookEvent(deps: Deps, event: string, objectId: string, applies?: () => boolean): void {
  const webhookIds = enabledWebhookIdsFor(deps.db, event);
  if (webhookIds.length === 0 || (applies && !applies())) return;
  const at = now();
  deps.db.transaction(() =>
    insertWebhookDeliveries(
      deps.db,
      webhookIds.map((webhookId) => ({ id: newId(at), webhook_id: webhookId, event, object_id: objectId, next_attempt_at: at, created_at: at })),
    ),
  );
  kickWebhookDelivery(deps);
}

/** Sends what is due, on the next turn of the event loop; a call while sending makes it look again when done. */
export function kickWebhookDelivery(deps: Deps): void {
  webhookPump.kick(deps);
}

/** Starts the requests that are due, as many as there is room for. */
function pump(deps: Deps, state: PumpState): void {
  // The instance closed meanwhile: what is queued waits in the database for the next start.
  if (!deps.db.raw.open) return;
  const room = MAX_IN_FLIGHT - state.inFlight.size;
  if (room <= 0) return;
  const at = now();
  const due = dueWebhookDeliveries(deps.db, at, room).filter((d) => !state.inFlight.has(d.id));
  if (due.length === 0) return;
  withRelaxedDurability(() => deps.db.transaction(() => leaseWebhookDeliveries(deps.db, due.map((d) => d.id), at + LEASE_MS)));
  const webhooks = findWebhooksByIds(deps.db, due.map((d) => d.webhook_id));
  for (const delivery of due) {
    const webhook = webhooks.get(delivery.webhook_id);
    // Deleted or disabled since the event: nothing is sent.
    if (!webhook || webhook.enabled === 0) {
      record(deps, () => deleteWebhookDelivery(deps.db, delivery.id));
      continue;
    }
    let body = delivery.body;
    if (body === null) {
      const payload = webhookPayload(deps, delivery.event, delivery.object_id, delivery.created_at);
      // The account, report or status went before anything was sent: there is nothing to say.
      if (!payload) {
        record(deps, () => deleteWebhookDelivery(deps.db, delivery.id));
        continue;
      }
      const made = webhookBody(payload, webhook.template);
      record(deps, () => setWebhookDeliveryBody(deps.db, delivery.id, made));
      body = made;
    }
    state.inFlight.add(delivery.id);
    void sendWebhook(webhook.url, webhook.secret, body, deps.uris.base).then((answer) => {
      state.inFlight.delete(delivery.id);
      settle(deps, delivery, answer);
      kickWebhookDelivery(deps);
    });
  }
}

/** Writes a queue change; a lost one (power cut) means a request sent again, never one lost. */
function record(deps: Deps, write: () => void): void {
  if (!deps.db.raw.open) return;
  withRelaxedDurability(() => deps.db.transaction(write));
}

/** Records how a request went (see the module comment). */
function settle(deps: Deps, delivery: WebhookDeliveryRow, answer: WebhookAnswer): void {
  if (!deps.db.raw.open) return;
  const status = 'status' in answer ? answer.status : 0;
  if (status >= 200 && status < 300) {
    record(deps, () => deleteWebhookDelivery(deps.db, delivery.id));
    return;
  }
  const error = 'error' in answer ? answer.error : `answered ${status}`;
  const final = status >= 400 && status < 500 && status !== 401 && status !== 408 && status !== 429;
  const attempts = delivery.attempts + 1;
  if (final || attempts >= MAX_WEBHOOK_ATTEMPTS) {
    record(deps, () => deleteWebhookDelivery(deps.db, delivery.id));
    console.warn(`webhook ${delivery.webhook_id}: ${delivery.event} given up after ${attempts} attempt(s): ${error}`);
    return;
  }
  record(deps, () => rescheduleWebhookDelivery(deps.db, delivery.id, attempts, now() + webhookRetryDelayMs(attempts), error));
}

/** Scheduler task: sends the webhook requests that are due (retries, and those a restart left). */
export function resumeWebhookDeliveries(deps: Deps): void {
  kickWebhookDelivery(deps);
}
