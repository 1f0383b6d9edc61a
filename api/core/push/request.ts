import type { ContentEncoding } from 'web-push';
import { findOwnerAccountId } from '../../db/repos/instance.js';
import { findUserByAccountId } from '../../db/repos/users.js';
import type { Deps } from '../deps.js';
import { getInstanceSetting } from '../instance/settings.js';
import { vapidKeys } from '../oauth/vapid.js';

/**
 * One push request as it goes on the wire (RFC 8030): the payload encrypted for the subscription
 * (RFC 8291 aes128gcm for standard subscriptions, the earlier aesgcm draft for the others, as
 * Mastodon 4.4 does) and the instance identified with VAPID (RFC 8292, or its first draft).
 * The `web-push` package does the encryption and signs the VAPID token.
 */

/** A push request ready to send. */
export interface PushRequest {
  url: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** What a push request is made for: the subscription's endpoint and keys. */
export interface PushTarget {
  endpoint: string;
  key_p256dh: string;
  key_auth: string;
  standard: number;
}

/** How long a push service keeps a message for a device that is offline: 48 hours, as Mastodon asks. */
export const PUSH_TTL_SECONDS = 48 * 3600;

/** How long a signed VAPID token is reused for one push service (it is valid for 12 hours). */
const VAPID_REUSE_MS = 3600_000;

/** What Hearth uses of web-push. */
type WebPushModule = Pick<typeof import('web-push'), 'encrypt' | 'getVapidHeaders'>;
let webPush: WebPushModule | null = null;

/**
 * Loads `web-push` on first use: it pulls in its HTTPS, proxy and JWT modules, which an instance
 * nobody subscribes on never needs.
 */
export async function loadWebPush(): Promise<WebPushModule> {
  webPush ??= (await import('web-push')).default;
  return webPush;
}

/** The instance's VAPID keys as web-push wants them, and the subject its tokens name. */
export interface VapidIdentity {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/**
 * Who the instance says it is in its VAPID tokens (a push service may write to them): the contact
 * e-mail of the instance, else its public origin when it is https, else the owner's e-mail.
 */
function vapidSubject(deps: Deps): string {
  const contact = getInstanceSetting(deps, 'contact_email').trim();
  if (contact) return `mailto:${contact}`;
  if (deps.config.origin?.startsWith('https://')) return deps.config.origin;
  const ownerId = findOwnerAccountId(deps.db);
  const email = ownerId ? findUserByAccountId(deps.db, ownerId)?.email : null;
  return email ? `mailto:${email}` : 'mailto:postmaster@localhost';
}

/** The VAPID identity of the instance (its keys are made once and kept, see core/oauth/vapid.ts). */
export function vapidIdentity(deps: Deps): VapidIdentity {
  const keys = vapidKeys(deps);
  // node:crypto drops the leading zero bytes of a private scalar (about one key in 250): web-push
  // wants all 32 bytes, so a key kept without them is padded back.
  const scalar = Buffer.from(keys.privateKey, 'base64url');
  const privateKey = scalar.length < 32 ? Buffer.concat([Buffer.alloc(32 - scalar.length), scalar]).toString('base64url') : keys.privateKey;
  return { publicKey: keys.publicKey, privateKey, subject: vapidSubject(deps) };
}

const tokens = new Map<string, { headers: { Authorization: string; 'Crypto-Key'?: string | undefined }; until: number }>();

/**
 * The VAPID headers for one push service (its origin is the token's audience), signed once and
 * reused for an hour: signing is the costliest step of a push after the encryption. Real time,
 * not the server's clock: the push service checks the token's expiry against its own.
 */
function vapidHeaders(lib: WebPushModule, audience: string, identity: VapidIdentity, encoding: ContentEncoding) {
  const key = `${identity.publicKey}|${identity.subject}|${encoding}|${audience}`;
  const cached = tokens.get(key);
  if (cached && cached.until > Date.now()) return cached.headers;
  const headers = lib.getVapidHeaders(audience, identity.subject, identity.publicKey, identity.privateKey, encoding);
  if (tokens.size > 1000) tokens.clear();
  tokens.set(key, { headers, until: Date.now() + VAPID_REUSE_MS });
  return headers;
}

/** Encrypts `payload` for the target and builds the request's headers. */
export function buildPushRequest(lib: WebPushModule, target: PushTarget, payload: string, identity: VapidIdentity): PushRequest {
  const encoding: ContentEncoding = target.standard === 1 ? 'aes128gcm' : 'aesgcm';
  const encrypted = lib.encrypt(target.key_p256dh, target.key_auth, payload, encoding);
  const url = new URL(target.endpoint);
  const vapid = vapidHeaders(lib, url.origin, identity, encoding);
  const headers: Record<string, string> = {
    'Content-Type': 'application/octet-stream',
    'Content-Encoding': encoding,
    TTL: String(PUSH_TTL_SECONDS),
    Urgency: 'normal',
    Authorization: vapid.Authorization,
  };
  if (encoding === 'aesgcm') {
    // The draft carries the salt and the sender's key in headers (RFC 8291 puts them in the body).
    // web-push's typings say string; it hands over the key's bytes.
    const dh: unknown = encrypted.localPublicKey;
    const senderKey = Buffer.isBuffer(dh) ? dh.toString('base64url') : String(dh);
    headers.Encryption = `salt=${encrypted.salt}`;
    headers['Crypto-Key'] = `dh=${senderKey};${vapid['Crypto-Key'] ?? ''}`;
  }
  return { url: target.endpoint, headers, body: encrypted.cipherText };
}
