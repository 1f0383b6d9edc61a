import { createECDH } from 'node:crypto';
import {
  deletePushSubscriptionOfToken,
  findPushSubscriptionOfToken,
  insertPushSubscription,
  updatePushSubscriptionData,
  type PushSubscriptionRow,
} from '../../db/repos/push-subscriptions.js';
import { now } from '../../util/clock.js';
import { ApiError, notFound } from '../../util/errors.js';
import { newId } from '../../util/ids.js';
import type { Deps } from '../deps.js';
import { isPushPolicy, PUSH_POLICIES, type PushPolicy, type StoredAlerts } from './alerts.js';

/** Who subscribes: the access token of the request, its user, and the token itself (for the payload). */
export interface PushCaller {
  tokenId: string;
  userId: string;
  accessToken: string;
}

/** What `POST /api/v1/push/subscription` gives, as read from the request (not yet validated). */
export interface NewPushSubscription {
  endpoint: string | undefined;
  p256dh: string | undefined;
  auth: string | undefined;
  standard: boolean;
  alerts: StoredAlerts;
  /** Undefined (or empty) means `all`. */
  policy: unknown;
}

/** The alerts and policy a subscription may change (`PUT`). */
export interface PushSubscriptionData {
  alerts: StoredAlerts;
  policy: unknown;
}

/** Longest endpoint accepted (push services' URLs are a few hundred characters). */
const MAX_ENDPOINT_LENGTH = 2048;

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

/** Bytes of a base64 or base64url value (with or without padding), or null when it is neither. */
function decodeBase64(value: string): Buffer | null {
  if (!BASE64.test(value)) return null;
  return Buffer.from(value.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url');
}

/**
 * Whether the endpoint is a URL push requests can go to: https (http too in the loopback test
 * mode, whose push endpoints are plain servers on loopback), with a host and no credentials.
 */
function endpointAllowed(deps: Deps, endpoint: string): boolean {
  if (endpoint.length > MAX_ENDPOINT_LENGTH) return false;
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return false;
  }
  const schemeOk = url.protocol === 'https:' || (url.protocol === 'http:' && deps.config.federationAllowLoopback);
  return schemeOk && url.hostname !== '' && url.username === '' && url.password === '';
}

/**
 * The keys as stored (base64url, no padding) when they can encrypt a message, as Mastodon checks
 * them by encrypting a test message: p256dh an uncompressed point on P-256, auth at least 16 bytes.
 */
function usableKeys(p256dh: string, auth: string): { p256dh: string; auth: string } | null {
  const point = decodeBase64(p256dh);
  const secret = decodeBase64(auth);
  if (!point || !secret || point.length !== 65 || point[0] !== 0x04 || secret.length < 16) return null;
  try {
    // Refuses a point that is not on the curve.
    const probe = createECDH('prime256v1');
    probe.generateKeys();
    probe.computeSecret(point);
  } catch {
    return null;
  }
  return { p256dh: point.toString('base64url'), auth: secret.toString('base64url') };
}

/** The policy asked for: absent or empty means `all`; anything else must be one of the four. */
function policyOf(value: unknown): PushPolicy {
  if (value === undefined || value === null || value === '') return 'all';
  if (!isPushPolicy(value)) throw new ApiError(422, `Validation failed: Policy is not included in the list (${PUSH_POLICIES.join(', ')})`);
  return value;
}

/**
 * Subscribes the caller's token to Web Push, replacing the subscription it had (one per token).
 * The endpoint and keys are validated as Mastodon does since 4.3 (422 with every problem named).
 */
export function createPushSubscription(deps: Deps, caller: PushCaller, input: NewPushSubscription): PushSubscriptionRow {
  const problems: string[] = [];
  const endpoint = input.endpoint?.trim() ?? '';
  if (endpoint === '') problems.push("Endpoint can't be blank");
  else if (!endpointAllowed(deps, endpoint)) problems.push('Endpoint is invalid');
  const p256dh = input.p256dh?.trim() ?? '';
  const auth = input.auth?.trim() ?? '';
  if (p256dh === '') problems.push("Key p256dh can't be blank");
  if (auth === '') problems.push("Key auth can't be blank");
  const keys = p256dh !== '' && auth !== '' ? usableKeys(p256dh, auth) : null;
  if (p256dh !== '' && auth !== '' && !keys) problems.push('Keys are not a P-256 public key and an auth secret of 16 bytes');
  if (problems.length > 0 || !keys) throw new ApiError(422, `Validation failed: ${problems.join(', ')}`);
  const policy = policyOf(input.policy);
  const at = now();
  const row: PushSubscriptionRow = {
    id: newId(at),
    user_id: caller.userId,
    access_token_id: caller.tokenId,
    endpoint,
    key_p256dh: keys.p256dh,
    key_auth: keys.auth,
    standard: input.standard ? 1 : 0,
    alerts: JSON.stringify(input.alerts),
    policy,
    access_token: caller.accessToken,
    created_at: at,
    updated_at: at,
  };
  deps.db.transaction(() => {
    deletePushSubscriptionOfToken(deps.db, caller.tokenId);
    insertPushSubscription(deps.db, row);
  });
  return row;
}

/** The subscription of the caller's token; 404 "Record not found" when it has none. */
export function pushSubscriptionOf(deps: Deps, tokenId: string): PushSubscriptionRow {
  const row = findPushSubscriptionOfToken(deps.db, tokenId);
  if (!row) throw notFound();
  return row;
}

/**
 * Replaces the alerts and policy of the caller's subscription (what is not given is off, as
 * Mastodon replaces its `data` whole); the endpoint and keys stay. 404 without a subscription.
 */
export function updatePushSubscription(deps: Deps, tokenId: string, data: PushSubscriptionData): PushSubscriptionRow {
  const row = pushSubscriptionOf(deps, tokenId);
  const policy = policyOf(data.policy);
  const alerts = JSON.stringify(data.alerts);
  const at = now();
  updatePushSubscriptionData(deps.db, row.id, alerts, policy, at);
  return { ...row, alerts, policy, updated_at: at };
}

/**
 * Removes the subscription of a token; fine when there is none. Also called when a token is
 * revoked: subscriptions die with their token.
 */
export function removePushSubscription(deps: Deps, tokenId: string): void {
  deletePushSubscriptionOfToken(deps.db, tokenId);
}
