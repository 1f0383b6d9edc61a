import { createECDH } from 'node:crypto';
import { getSetting, setSetting } from '../../db/repos/settings.js';
import type { Deps } from '../deps.js';

/** The instance's Web Push (VAPID) key pair, base64url: an uncompressed P-256 point and its scalar. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

const SETTING = 'vapid_keys';

/**
 * The instance's VAPID key pair, made on first use and kept in `settings` (`vapid_keys`), so the
 * Application entity's `vapid_key`, the instance's `configuration.vapid.public_key` and Web Push
 * delivery all use the same key.
 */
export function vapidKeys(deps: Deps): VapidKeys {
  const existing = getSetting<VapidKeys>(deps.db, SETTING);
  if (existing) return existing;
  return deps.db.transaction(() => {
    // Another caller may have made them between the read above and this transaction.
    const again = getSetting<VapidKeys>(deps.db, SETTING);
    if (again) return again;
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const keys: VapidKeys = {
      publicKey: ecdh.getPublicKey().toString('base64url'),
      privateKey: ecdh.getPrivateKey().toString('base64url'),
    };
    setSetting(deps.db, SETTING, keys);
    return keys;
  });
}

/** The public VAPID key, as `vapid_key` and `configuration.vapid.public_key` show it. */
export function vapidPublicKey(deps: Deps): string {
  return vapidKeys(deps).publicKey;
}
