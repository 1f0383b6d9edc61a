import {
  loadNotificationPolicy,
  notificationPolicySummary,
  POLICY_ACTIONS,
  updateNotificationPolicy,
  type NotificationPolicy,
  type PolicyAction,
} from '../../core/notifications/policy.js';
import { toMastodonNotificationPolicy, toMastodonV1NotificationPolicy } from '../../serializers/notification-policy.js';
import { bool, parse, z } from '../params.js';
import type { Routes, UserCtx } from '../routes.js';

// An action named as the API names it; '' and null are "not given", as Rails leaves them.
const action = () =>
  z.preprocess((v) => (v === '' || v === null ? undefined : v), z.enum(POLICY_ACTIONS as [PolicyAction, ...PolicyAction[]], { error: 'is not included in the list' }).optional());

const v2Schema = z.object({
  for_not_following: action(),
  for_not_followers: action(),
  for_new_accounts: action(),
  for_private_mentions: action(),
  for_limited_accounts: action(),
});

const v1Schema = z.object({
  filter_not_following: bool(),
  filter_not_followers: bool(),
  filter_new_accounts: bool(),
  filter_private_mentions: bool(),
});

/** Only the rules given: an update leaves the others as they are. */
function given<T extends object>(values: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** The v1 booleans as Mastodon maps them onto the v2 rules: true filters, false accepts. */
function fromV1(input: Record<string, unknown>): Partial<NotificationPolicy> {
  const p = given(parse(v1Schema, input));
  const out: Partial<NotificationPolicy> = {};
  const rules = [
    ['filter_not_following', 'for_not_following'],
    ['filter_not_followers', 'for_not_followers'],
    ['filter_new_accounts', 'for_new_accounts'],
    ['filter_private_mentions', 'for_private_mentions'],
  ] as const;
  for (const [v1, v2] of rules) {
    const value = p[v1];
    if (value !== undefined) out[v2] = value ? 'filter' : 'accept';
  }
  return out;
}

function v2Entity(ctx: UserCtx, policy: NotificationPolicy) {
  return toMastodonNotificationPolicy(policy, notificationPolicySummary(ctx.deps, ctx.account.id));
}

function v1Entity(ctx: UserCtx, policy: NotificationPolicy) {
  return toMastodonV1NotificationPolicy(policy, notificationPolicySummary(ctx.deps, ctx.account.id));
}

/** GET/PATCH/PUT /api/v2/notifications/policy and the v1 policy: what the user's notification policy filters. */
export function register(r: Routes): void {
  r.get('/api/v2/notifications/policy', 'user', ['read:notifications'], (ctx) => v2Entity(ctx, loadNotificationPolicy(ctx.deps, ctx.account.id)));
  // Rails routes a singular resource's update by PATCH and by PUT alike.
  for (const method of ['patch', 'put'] as const) {
    r[method]('/api/v2/notifications/policy', 'user', ['write:notifications'], (ctx) =>
      v2Entity(ctx, updateNotificationPolicy(ctx.deps, ctx.account.id, given(parse(v2Schema, ctx.input)))),
    );
  }

  r.get('/api/v1/notifications/policy', 'user', ['read:notifications'], (ctx) => v1Entity(ctx, loadNotificationPolicy(ctx.deps, ctx.account.id)));
  for (const method of ['patch', 'put'] as const) {
    r[method]('/api/v1/notifications/policy', 'user', ['write:notifications'], (ctx) =>
      v1Entity(ctx, updateNotificationPolicy(ctx.deps, ctx.account.id, fromV1(ctx.input))),
    );
  }
}
