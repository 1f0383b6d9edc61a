import { recordUserIp } from '../../db/repos/admin-accounts.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';

/**
 * Remembers the address a user signed in from (the browser sign-in of the OAuth flow), for staff:
 * Admin::Account `ip` and `ips`, and the admin listing's `ip` filter. IPv4-mapped IPv6 addresses
 * are kept as IPv4.
 */
export function recordSignInAddress(deps: Deps, userId: string, address: string): void {
  const ip = address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');
  if (!ip) return;
  recordUserIp(deps.db, userId, ip, now());
}
