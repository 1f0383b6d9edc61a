import { createDecipheriv, createECDH, createHmac, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The user agent's side of Web Push for tests: a subscription's keys (a P-256 key pair and a
 * 16-byte auth secret, as a browser makes them), a push service on loopback that records what it
 * receives and answers as told, and the decryption of what it received (RFC 8291 aes128gcm, and
 * the aesgcm draft that Mastodon's non-standard subscriptions use), written here from the RFCs.
 */

/** A subscription's key material as the browser holds it. */
export interface UserAgentKeys {
  ecdh: ECDH;
  /** Public key, base64url (uncompressed point, 65 bytes). */
  p256dh: string;
  /** Auth secret, base64url (16 bytes). */
  auth: string;
}

/** Makes fresh subscription keys. */
export function userAgentKeys(): UserAgentKeys {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return { ecdh, p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') };
}

/** HMAC-SHA-256: HKDF's extract step (salt as key) and its single-block expand step. */
function hmac(key: Buffer, ...data: Buffer[]): Buffer {
  const h = createHmac('sha256', key);
  for (const d of data) h.update(d);
  return h.digest();
}

/** HKDF-Expand for one block (all we need: at most 32 bytes). */
function expand(prk: Buffer, info: Buffer, length: number): Buffer {
  return hmac(prk, info, Buffer.from([1])).subarray(0, length);
}

function aesGcmOpen(key: Buffer, nonce: Buffer, sealed: Buffer): Buffer {
  const decipher = createDecipheriv('aes-128-gcm', key, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
}

/**
 * RFC 8291 (with RFC 8188's aes128gcm coding): the body starts with the salt, the record size and
 * the sender's public key; the key comes from ECDH and the auth secret; each record ends with a
 * padding delimiter (2 for the last, 1 before) followed by zeros.
 */
export function decryptAes128gcm(body: Buffer, keys: UserAgentKeys): string {
  const salt = body.subarray(0, 16);
  const rs = body.readUInt32BE(16);
  const idLength = body[20] ?? 0;
  const senderKey = body.subarray(21, 21 + idLength);
  const records = body.subarray(21 + idLength);
  const uaPublic = keys.ecdh.getPublicKey();
  const ecdhSecret = keys.ecdh.computeSecret(senderKey);
  const prkKey = hmac(Buffer.from(keys.auth, 'base64url'), ecdhSecret);
  const ikm = expand(prkKey, Buffer.concat([Buffer.from('WebPush: info\0'), uaPublic, senderKey]), 32);
  const prk = hmac(salt, ikm);
  const cek = expand(prk, Buffer.from('Content-Encoding: aes128gcm\0'), 16);
  const baseNonce = expand(prk, Buffer.from('Content-Encoding: nonce\0'), 12);
  const parts: Buffer[] = [];
  for (let seq = 0, offset = 0; offset < records.length; seq++, offset += rs) {
    const nonce = Buffer.from(baseNonce);
    nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ seq) >>> 0, 8);
    const plain = aesGcmOpen(cek, nonce, records.subarray(offset, offset + rs));
    let end = plain.length - 1;
    while (end >= 0 && plain[end] === 0) end--;
    const delimiter = plain[end];
    const last = offset + rs >= records.length;
    if (delimiter !== (last ? 2 : 1)) throw new Error(`bad padding delimiter ${String(delimiter)}`);
    parts.push(plain.subarray(0, end));
  }
  return Buffer.concat(parts).toString('utf8');
}

/** A `name=value` parameter of a header such as `Crypto-Key: dh=…;p256ecdsa=…`. */
export function headerParam(header: string | string[] | undefined, name: string): string | null {
  const text = Array.isArray(header) ? header.join(';') : (header ?? '');
  for (const part of text.split(/[;,]/)) {
    const [key, ...rest] = part.trim().split('=');
    if (key === name) return rest.join('=');
  }
  return null;
}

/**
 * The aesgcm draft (draft-ietf-webpush-encryption-04 with draft-ietf-httpbis-encryption-encoding-03):
 * the salt comes in `Encryption`, the sender's key in `Crypto-Key: dh=`; the key and nonce are
 * derived with a context naming both public keys; each record starts with a two-byte padding length.
 */
export function decryptAesgcm(body: Buffer, headers: IncomingHttpHeaders, keys: UserAgentKeys): string {
  const salt = Buffer.from(headerParam(headers.encryption, 'salt') ?? '', 'base64url');
  const senderKey = Buffer.from(headerParam(headers['crypto-key'], 'dh') ?? '', 'base64url');
  const uaPublic = keys.ecdh.getPublicKey();
  const ecdhSecret = keys.ecdh.computeSecret(senderKey);
  const prkCombine = hmac(Buffer.from(keys.auth, 'base64url'), ecdhSecret);
  const ikm = expand(prkCombine, Buffer.from('Content-Encoding: auth\0'), 32);
  const length = (key: Buffer) => Buffer.from([key.length >> 8, key.length & 0xff]);
  const context = Buffer.concat([Buffer.from('P-256\0'), length(uaPublic), uaPublic, length(senderKey), senderKey]);
  const prk = hmac(salt, ikm);
  const cek = expand(prk, Buffer.concat([Buffer.from('Content-Encoding: aesgcm\0'), context]), 16);
  const baseNonce = expand(prk, Buffer.concat([Buffer.from('Content-Encoding: nonce\0'), context]), 12);
  const rs = 4096 + 16;
  const parts: Buffer[] = [];
  for (let seq = 0, offset = 0; offset < body.length; seq++, offset += rs) {
    const nonce = Buffer.from(baseNonce);
    nonce.writeUInt32BE((nonce.readUInt32BE(8) ^ seq) >>> 0, 8);
    const plain = aesGcmOpen(cek, nonce, body.subarray(offset, offset + rs));
    const pad = plain.readUInt16BE(0);
    parts.push(plain.subarray(2 + pad));
  }
  return Buffer.concat(parts).toString('utf8');
}

/**
 * Checks a VAPID token (an ES256 JWT) against the instance's public key (base64url, uncompressed
 * point) and returns its claims; throws when the signature does not hold.
 */
export function verifyVapidJwt(jwt: string, publicKey: string): { aud: string; exp: number; sub: string } {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const point = Buffer.from(publicKey, 'base64url');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') }, format: 'jwk' });
  const ok = verify('sha256', Buffer.from(`${header}.${payload}`), { key, dsaEncoding: 'ieee-p1363' }, Buffer.from(signature, 'base64url'));
  if (!ok) throw new Error('the VAPID signature does not verify');
  return JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { aud: string; exp: number; sub: string };
}

/** A request the push service received. */
export interface ReceivedPush {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  at: number;
}

/**
 * A push service on loopback: records every POST and answers each device with the next status
 * queued for it (`answer`), else 201 (a push service's "created").
 */
export class PushService {
  readonly received: ReceivedPush[] = [];
  private readonly answers = new Map<string, number[]>();
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    readonly base: string,
  ) {}

  static async start(host = '127.0.0.1'): Promise<PushService> {
    let service: PushService | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        service?.receive({ path, headers: req.headers, body: Buffer.concat(chunks), at: Date.now() });
        res.statusCode = service?.answers.get(path)?.shift() ?? 201;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, host, resolve));
    const { port } = server.address() as AddressInfo;
    service = new PushService(server, `http://${host}:${port}`);
    return service;
  }

  private receive(push: ReceivedPush): void {
    this.received.push(push);
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Queues the statuses the device's next requests are answered with. */
  answer(device: string, ...statuses: number[]): void {
    const path = `/push/${device}`;
    this.answers.set(path, [...(this.answers.get(path) ?? []), ...statuses]);
  }

  /** The endpoint URL of a device (any path). */
  endpoint(device: string): string {
    return `${this.base}/push/${device}`;
  }

  /** What was received for one device. */
  to(device: string): ReceivedPush[] {
    return this.received.filter((p) => p.path === `/push/${device}`);
  }

  /** Resolves once `count` requests have reached the device (or fails after `timeoutMs`). */
  async waitFor(device: string, count: number, timeoutMs = 10_000): Promise<ReceivedPush[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.to(device).length < count) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`${device} received ${this.to(device).length} pushes, expected ${count}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.to(device);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** The payload of a push Hearth sent: decrypted with the device's keys, by the encoding the request names. */
export function openPush(push: ReceivedPush, keys: UserAgentKeys): { text: string; json: Record<string, unknown> } {
  const text = push.headers['content-encoding'] === 'aes128gcm' ? decryptAes128gcm(push.body, keys) : decryptAesgcm(push.body, push.headers, keys);
  return { text, json: JSON.parse(text) as Record<string, unknown> };
}

/** The JSON body of `POST /api/v1/push/subscription` for a device. */
export function subscribeBody(endpoint: string, keys: UserAgentKeys, alerts: Record<string, unknown>, extra: { standard?: boolean; policy?: string } = {}): Record<string, unknown> {
  return {
    subscription: { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth }, ...(extra.standard === undefined ? {} : { standard: extra.standard }) },
    data: { alerts, ...(extra.policy === undefined ? {} : { policy: extra.policy }) },
  };
}
