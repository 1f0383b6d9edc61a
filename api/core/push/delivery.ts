import { withRelaxedDurability } from '../../db/connection.js';
import { followsOf } from '../../db/repos/follows.js';
import { findNotification, type NotificationRow } from '../../db/repos/notifications.js';
import {
  deletePushDelivery,
  duePushDeliveries,
  insertPushDeliveries,
  leasePushDeliveries,
  reschedulePushDelivery,
  type PushDeliveryRow,
} from '../../db/repos/push-deliveries.js';
import {
  deletePushSubscription,
  findLiveSubscriptions,
  liveSubscriptionsOfAccount,
  type AccountPushSubscriptionRow,
} from '../../db/repos/push-subscriptions.js';
import { nextTurn } from '../../util/background-lane.js';
import { now } from '../../util/clock.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { alertEnabled, parseStoredAlerts } from './alerts.js';
import { pushContentOf, pushPayloadText, type PushContent } from './payload.js';
import { buildPushRequest, loadWebPush, vapidIdentity, type PushRequest } from './request.js';
import { PushSendError, sendPushRequest, type PushAnswer } from './send.js';

/**
 * Web Push delivery: a durable queue in `push_deliveries`, one row per notification and
 * subscription. A new notification queues its rows and starts sending at once (on the next turn
 * of the event loop, off the request); the job scheduler picks up what is due again (retries,
 * and what a restart left). A 2xx ends a row; a 4xx other than 408 and 429 means the
 * subscription is dead (expired or unsubscribed at the push service) and removes it, as Mastodon
 * does; 408, 429, 5xx and network errors are retried with growing pauses, five times.
 */

/** Attempts per push at most: the first and five retries (Mastodon's push job retries five times). */
export const MAX_PUSH_ATTEMPTS = 6;

/** Push requests in flight at once per instance. */
const MAX_IN_FLIGHT = 128;

/** While a push is in flight its row is due only after this; a restart sends it again then. */
const LEASE_MS = 5 * 60_000;

/** Pushes encrypted in one go before the event loop gets a turn (answering requests meanwhile). */
const ENCRYPT_SLICE = 16;

/** The longest pause a Retry-After may ask for. */
const MAX_RETRY_AFTER_MS = 3600_000;

/** How a push attempt ended. */
type Outcome =
  | { kind: 'done'; delivery: PushDeliveryRow }
  | { kind: 'gone'; delivery: PushDeliveryRow }
  | { kind: 'retry'; delivery: PushDeliveryRow; error: string; retryAfterMs: number | null }
  | { kind: 'failed'; delivery: PushDeliveryRow; error: string };

interface PushState {
  inFlight: Set<string>;
  pumping: boolean;
  again: boolean;
  outcomes: Outcome[];
  flushing: boolean;
}

const states = new WeakMap<Deps, PushState>();

function stateOf(deps: Deps): PushState {
  let state = states.get(deps);
  if (!state) {
    state = { inFlight: new Set(), pumping: false, again: false, outcomes: [], flushing: false };
    states.set(deps, state);
  }
  return state;
}

/**
 * The pause before attempt `attempts + 1`, after `attempts` failed ones: 15 s, then growing as
 * the fourth power of the count (about 16 s, 31 s, 96 s, 271 s), with a random spread so that
 * retries to one push service do not all come back together.
 */
export function pushRetryDelayMs(attempts: number): number {
  const n = Math.max(0, attempts - 1);
  return (15 + n ** 4) * 1000 + Math.floor(Math.random() * 10_000 * (n + 1));
}

/** Whether the subscription's policy lets a notification from `fromAccountId` through. */
function policyAllows(deps: Deps, subscription: AccountPushSubscriptionRow, fromAccountId: string): boolean {
  switch (subscription.policy) {
    case 'all':
      return true;
    case 'followed':
      return followsOf(deps.db, subscription.account_id, [fromAccountId]).has(fromAccountId);
    case 'follower':
      return followsOf(deps.db, fromAccountId, [subscription.account_id]).has(subscription.account_id);
    default:
      return false;
  }
}

/** Whether a subscription wants this notification pushed: its alert for the type is on and its policy allows the sender. */
function pushable(deps: Deps, subscription: AccountPushSubscriptionRow, notification: NotificationRow): boolean {
  return notification.filtered === 0 && alertEnabled(parseStoredAlerts(subscription.alerts), notification.type) && policyAllows(deps, subscription, notification.from_account_id);
}

/**
 * Queues the pushes of a new notification (on `notification.created`, which filtered
 * notifications never send) to the recipient's subscriptions that want it, and starts sending.
 */
export function queueNotificationPushes(deps: Deps, notificationId: string, accountId: string): void {
  const at = now();
  const subscriptions = liveSubscriptionsOfAccount(deps.db, accountId, at);
  if (subscriptions.length === 0) return;
  const notification = findNotification(deps.db, accountId, notificationId);
  if (!notification) return;
  const wanted = subscriptions.filter((s) => pushable(deps, s, notification));
  if (wanted.length === 0) return;
  deps.db.transaction(() =>
    insertPushDeliveries(
      deps.db,
      wanted.map((s) => ({ id: newId(at), subscription_id: s.id, notification_id: notificationId, next_attempt_at: at, created_at: at })),
    ),
  );
  kickPushDelivery(deps);
}

/**
 * Sends what is due, on the next turn of the event loop (also the scheduler's task: retries and
 * what a restart left). A call while sending is under way makes it look again when done.
 */
export function kickPushDelivery(deps: Deps): void {
  const state = stateOf(deps);
  if (state.pumping) {
    state.again = true;
    return;
  }
  state.pumping = true;
  setImmediate(() => {
    pump(deps, state)
      .catch((err: unknown) => console.error('push delivery failed', err))
      .finally(() => {
        state.pumping = false;
        if (state.again) {
          state.again = false;
          kickPushDelivery(deps);
        }
      });
  });
}

async function pump(deps: Deps, state: PushState): Promise<void> {
  for (;;) {
    // The instance closed meanwhile: what is queued waits in the database for the next start.
    if (!deps.db.raw.open) return;
    const room = MAX_IN_FLIGHT - state.inFlight.size;
    if (room <= 0) return;
    const at = now();
    const due = duePushDeliveries(deps.db, at, room).filter((d) => !state.inFlight.has(d.id));
    if (due.length === 0) return;
    withRelaxedDurability(() => deps.db.transaction(() => leasePushDeliveries(deps.db, due.map((d) => d.id), at + LEASE_MS)));
    for (const d of due) state.inFlight.add(d.id);
    await startBatch(deps, state, due, at);
  }
}

/** Builds and starts the push requests of a batch of due deliveries (their answers come later). */
async function startBatch(deps: Deps, state: PushState, due: PushDeliveryRow[], at: number): Promise<void> {
  const lib = await loadWebPush();
  const identity = vapidIdentity(deps);
  const subscriptions = findLiveSubscriptions(deps.db, due.map((d) => d.subscription_id), at);
  // A batch is mostly the pushes of one notification to several subscriptions: each is loaded once.
  const notifications = new Map<string, NotificationRow | undefined>();
  const contents = new Map<string, PushContent | null>();
  let sliced = 0;
  for (const delivery of due) {
    const subscription = subscriptions.get(delivery.subscription_id);
    let notification: NotificationRow | undefined;
    if (subscription) {
      const key = `${subscription.account_id}/${delivery.notification_id}`;
      if (!notifications.has(key)) notifications.set(key, findNotification(deps.db, subscription.account_id, delivery.notification_id));
      notification = notifications.get(key);
    }
    // The subscription's token was revoked, or the notification went (undone, dismissed), or the
    // subscription no longer wants it (alerts or policy changed since): nothing to send.
    if (!subscription || !notification || !pushable(deps, subscription, notification)) {
      settle(deps, state, { kind: 'done', delivery });
      continue;
    }
    if (!contents.has(notification.id)) contents.set(notification.id, pushContentOf(deps, notification));
    const content = contents.get(notification.id);
    if (!content) {
      settle(deps, state, { kind: 'done', delivery });
      continue;
    }
    let request: PushRequest;
    try {
      request = buildPushRequest(lib, subscription, pushPayloadText(content, subscription.access_token, subscription.user_locale), identity);
    } catch (err) {
      settle(deps, state, { kind: 'failed', delivery, error: `could not encrypt: ${(err as Error).message}` });
      continue;
    }
    sendPushRequest(deps, request).then(
      (answer) => settle(deps, state, outcomeOf(delivery, answer)),
      (err: unknown) => {
        const permanent = err instanceof PushSendError && err.permanent;
        const error = (err as Error).message;
        settle(deps, state, permanent ? { kind: 'failed', delivery, error } : { kind: 'retry', delivery, error, retryAfterMs: null });
      },
    );
    if (++sliced % ENCRYPT_SLICE === 0) {
      await nextTurn();
      // Closed meanwhile: the rest of the batch is sent again after the next start (its lease ends).
      if (!deps.db.raw.open) return;
    }
  }
}

/** What an answer means for the delivery (see the module comment). */
function outcomeOf(delivery: PushDeliveryRow, answer: PushAnswer): Outcome {
  if (answer.status >= 200 && answer.status < 300) return { kind: 'done', delivery };
  if (answer.status >= 400 && answer.status < 500 && answer.status !== 408 && answer.status !== 429) return { kind: 'gone', delivery };
  return { kind: 'retry', delivery, error: `answered ${answer.status}`, retryAfterMs: answer.retryAfterMs };
}

/** Records an outcome; outcomes are written together on the next turn (one commit for many pushes). */
function settle(deps: Deps, state: PushState, outcome: Outcome): void {
  state.outcomes.push(outcome);
  if (state.flushing) return;
  state.flushing = true;
  setImmediate(() => {
    state.flushing = false;
    const outcomes = state.outcomes.splice(0);
    try {
      writeOutcomes(deps, outcomes);
    } catch (err) {
      console.error('push delivery: could not record outcomes', err);
    } finally {
      for (const o of outcomes) state.inFlight.delete(o.delivery.id);
    }
    // Room was made: what waits gets its turn.
    kickPushDelivery(deps);
  });
}

function writeOutcomes(deps: Deps, outcomes: Outcome[]): void {
  if (outcomes.length === 0 || !deps.db.raw.open) return;
  const at = now();
  const giveUps: string[] = [];
  // A lost write is a push sent again after a power cut: a row is only ever removed or moved ahead.
  withRelaxedDurability(() =>
    deps.db.transaction(() => {
      for (const outcome of outcomes) {
        const { delivery } = outcome;
        switch (outcome.kind) {
          case 'done':
            deletePushDelivery(deps.db, delivery.id);
            break;
          case 'gone':
            // Its queued deliveries go with it.
            deletePushSubscription(deps.db, delivery.subscription_id);
            break;
          case 'failed':
            deletePushDelivery(deps.db, delivery.id);
            giveUps.push(`push ${delivery.id}: ${outcome.error}`);
            break;
          case 'retry': {
            const attempts = delivery.attempts + 1;
            if (attempts >= MAX_PUSH_ATTEMPTS) {
              deletePushDelivery(deps.db, delivery.id);
              giveUps.push(`push ${delivery.id} given up after ${attempts} attempts: ${outcome.error}`);
              break;
            }
            const pause = Math.max(pushRetryDelayMs(attempts), Math.min(outcome.retryAfterMs ?? 0, MAX_RETRY_AFTER_MS));
            reschedulePushDelivery(deps.db, delivery.id, attempts, at + pause, outcome.error);
            break;
          }
        }
      }
    }),
  );
  for (const line of giveUps) console.warn(line);
}

/** Scheduler task: sends the pushes that are due (retries, and those a restart left). */
export function resumePushDeliveries(deps: Deps): void {
  kickPushDelivery(deps);
}
