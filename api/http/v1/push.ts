import type { Deps } from '../../core/deps.js';
import { vapidPublicKey } from '../../core/oauth/vapid.js';
import { castAlert, castAlerts, parseStoredAlerts } from '../../core/push/alerts.js';
import {
  createPushSubscription,
  pushSubscriptionOf,
  removePushSubscription,
  updatePushSubscription,
  type PushSubscriptionData,
} from '../../core/push/subscriptions.js';
import { toMastodonWebPushSubscription, type MastodonWebPushSubscription } from '../../serializers/push-subscription.js';
import { tokenFromRequest } from '../middleware/auth.js';
import { required } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';

const PATH = '/api/v1/push/subscription';

function record(value: unknown): Record<string, unknown> | null {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A scalar parameter as text (numbers as Rails would receive them); anything else is absent. */
function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * `data[alerts]` and `data[policy]`. The policy is also read at the top level, where the method's
 * documentation and masto.js put it (Mastodon itself reads only `data[policy]`).
 */
function dataOf(input: Record<string, unknown>): PushSubscriptionData {
  const data = record(input.data) ?? {};
  return { alerts: castAlerts(data.alerts), policy: data.policy ?? input.policy };
}

function entity(deps: Deps, row: ReturnType<typeof pushSubscriptionOf>): MastodonWebPushSubscription {
  return toMastodonWebPushSubscription(row, parseStoredAlerts(row.alerts), vapidPublicKey(deps));
}

/** The access token of the request itself (the payload carries it), as the route resolved it. */
function callerOf(ctx: UserCtx): { tokenId: string; userId: string; accessToken: string } {
  const accessToken = tokenFromRequest(ctx.req);
  if (!accessToken) throw new Error('a user route without a token');
  return { tokenId: ctx.auth.token.id, userId: ctx.user.id, accessToken };
}

/**
 * /api/v1/push/subscription: the Web Push subscription of the request's access token (one per
 * token), with the `push` scope. POST subscribes (replacing the token's subscription), GET shows
 * it, PUT changes its alerts and policy, DELETE removes it.
 */
export function register(r: Routes): void {
  r.post(PATH, 'user', ['push'], (ctx) => {
    // Rails' ParameterMissing: no `subscription` hash at all is a 400.
    const subscription = required(record(ctx.input.subscription), 'subscription');
    const keys = record(subscription.keys) ?? {};
    const row = createPushSubscription(ctx.deps, callerOf(ctx), {
      endpoint: text(subscription.endpoint),
      p256dh: text(keys.p256dh),
      auth: text(keys.auth),
      standard: castAlert(subscription.standard) === true,
      ...dataOf(ctx.input),
    });
    return entity(ctx.deps, row);
  });

  r.get(PATH, 'user', ['push'], (ctx) => entity(ctx.deps, pushSubscriptionOf(ctx.deps, ctx.auth.token.id)));

  r.put(PATH, 'user', ['push'], (ctx) => entity(ctx.deps, updatePushSubscription(ctx.deps, ctx.auth.token.id, dataOf(ctx.input))));

  r.delete(PATH, 'user', ['push'], (ctx) => {
    removePushSubscription(ctx.deps, ctx.auth.token.id);
    return {};
  });
}
