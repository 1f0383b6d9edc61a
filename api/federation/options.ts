import { createExponentialBackoffPolicy, type FederationOptions } from '@fedify/fedify';
import { HEARTH_VERSION } from '../util/version.js';

/**
 * Answers after which a delivery is not tried again: every 4xx but 401 (the signature was refused,
 * perhaps for a key the peer has not fetched yet), 408 (the peer timed out) and 429 (too many
 * requests), as Mastodon treats them. Everything else (5xx, no answer) is retried with back-off.
 */
export const FINAL_DELIVERY_STATUSES: readonly number[] = Array.from({ length: 100 }, (_, i) => 400 + i).filter((s) => s !== 401 && s !== 408 && s !== 429);

/** What the main thread's federation and the delivery thread's must agree on. */
export interface SharedFederationSettings {
  origin: string;
  /** Private and loopback addresses may be reached (tests and local experiments only). */
  allowPrivateAddress: boolean;
}

/**
 * Fedify options common to both federation objects of an instance (the main thread's, which
 * serves and handles the inbox, and the delivery thread's, which sends): how requests are signed
 * and named, and how failed deliveries are retried (or not). Queues and the key-value store are
 * added by each side on its own database connection.
 */
export function sharedFederationOptions(settings: SharedFederationSettings): Omit<FederationOptions<unknown>, 'kv'> {
  return {
    manuallyStartQueue: true,
    origin: settings.origin,
    allowPrivateAddress: settings.allowPrivateAddress,
    firstKnock: 'draft-cavage-http-signatures-12',
    userAgent: { software: `Hearth/${HEARTH_VERSION}`, url: settings.origin },
    // Freshness is checked against our own clock in the middleware (replay tests set it).
    signatureTimeWindow: false,
    // A peer may be down for hours: retries back off from 10 s to at most an hour between
    // attempts, and stop after about 15 hours (Fedify's default gives up after ~17 minutes).
    outboxRetryPolicy: createExponentialBackoffPolicy({ initialDelay: { seconds: 10 }, maxDelay: { hours: 1 }, factor: 2, maxAttempts: 24 }),
    // Fedify gives up at once only on 404 and 410 by default.
    permanentFailureStatusCodes: FINAL_DELIVERY_STATUSES,
  };
}
