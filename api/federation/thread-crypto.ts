// Tweaks for a background thread that must yield a shared core to the main thread.
import { createHash, KeyObject, sign as signSync, verify as verifySync, type webcrypto } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';

/**
 * Lowers the calling thread's scheduling priority to `nice`; returns whether it did. On Linux a
 * thread id is a valid target of setpriority, and only that thread changes. Deliveries are
 * background work: when one core serves both, the REST API's thread gets it first. Elsewhere the
 * call is refused or meaningless, and the thread keeps the default.
 */
export function lowerThreadPriority(nice: number): boolean {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, nice);
    return true;
  } catch {
    // no /proc (macOS, Windows) or not permitted: same priority as the main thread
    return false;
  }
}

/** Which WebCrypto operations `cryptoOnThisThread` takes over. */
export interface ThisThreadCrypto {
  /** RSA PKCS#1 v1.5 signing (about 0.3 ms each: worth it only on a thread of low priority). */
  sign?: boolean;
  /** RSA PKCS#1 v1.5 verification (some 30 µs each). */
  verify?: boolean;
  /** SHA-1 and SHA-2 digests (microseconds for a request body). */
  digest?: boolean;
}

function bytesOf(data: webcrypto.BufferSource): Uint8Array {
  return ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
}

function arrayBufferOf(buf: Buffer): ArrayBuffer {
  return buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength) as ArrayBuffer;
}

/** The Node hash name of an RSA PKCS#1 v1.5 key's hash, or null for another kind of key. */
function rsaHashOf(algorithm: webcrypto.AlgorithmIdentifier, key: webcrypto.CryptoKey, type: 'private' | 'public', usage: 'sign' | 'verify'): string | null {
  const name = typeof algorithm === 'string' ? algorithm : algorithm.name;
  const hash = (key.algorithm as webcrypto.RsaHashedKeyAlgorithm).hash?.name;
  if (name !== 'RSASSA-PKCS1-v1_5' || key.algorithm.name !== 'RSASSA-PKCS1-v1_5' || key.type !== type || !key.usages.includes(usage)) return null;
  return hash && /^SHA-(1|256|384|512)$/.test(hash) ? hash.replace('-', '').toLowerCase() : null;
}

/**
 * Runs some WebCrypto operations synchronously on the calling thread with node:crypto, which gives
 * the very same bytes and answers. Node runs every WebCrypto job on libuv's pool: for a digest or
 * an RSA verification (microseconds of work) the trip costs more than the work, and on a machine
 * whose cores are all busy the pool's threads, at the main thread's priority, take the core from
 * the thread that serves requests. Signing is taken over only on a thread of low priority (the
 * delivery thread): there it runs at that priority instead of the pool's. Other algorithms keep
 * WebCrypto's path. Returns the function that restores WebCrypto's own.
 */
export function cryptoOnThisThread(ops: ThisThreadCrypto): () => void {
  const subtle = globalThis.crypto.subtle;
  const own: (keyof ThisThreadCrypto)[] = [];
  const define = (name: keyof ThisThreadCrypto, value: unknown) => {
    // Taken over once: a second call would only wrap the first.
    if (Object.hasOwn(subtle, name)) return;
    Object.defineProperty(subtle, name, { value, configurable: true, writable: true });
    own.push(name);
  };
  if (ops.sign) {
    const viaPool = subtle.sign.bind(subtle);
    define('sign', ((algorithm, key, data) => {
      const hash = rsaHashOf(algorithm, key, 'private', 'sign');
      if (hash === null) return viaPool(algorithm, key, data);
      try {
        return Promise.resolve(arrayBufferOf(signSync(hash, bytesOf(data), KeyObject.from(key))));
      } catch (err) {
        return Promise.reject(err);
      }
    }) satisfies webcrypto.SubtleCrypto['sign']);
  }
  if (ops.verify) {
    const viaPool = subtle.verify.bind(subtle);
    define('verify', ((algorithm, key, signature, data) => {
      const hash = rsaHashOf(algorithm, key, 'public', 'verify');
      if (hash === null) return viaPool(algorithm, key, signature, data);
      try {
        return Promise.resolve(verifySync(hash, bytesOf(data), KeyObject.from(key), bytesOf(signature)));
      } catch (err) {
        return Promise.reject(err);
      }
    }) satisfies webcrypto.SubtleCrypto['verify']);
  }
  if (ops.digest) {
    const viaPool = subtle.digest.bind(subtle);
    define('digest', ((algorithm, data) => {
      const name = typeof algorithm === 'string' ? algorithm : algorithm.name;
      if (!/^SHA-(1|256|384|512)$/.test(name)) return viaPool(algorithm, data);
      try {
        return Promise.resolve(arrayBufferOf(createHash(name.replace('-', '').toLowerCase()).update(bytesOf(data)).digest()));
      } catch (err) {
        return Promise.reject(err);
      }
    }) satisfies webcrypto.SubtleCrypto['digest']);
  }
  return () => {
    for (const name of own) delete (subtle as Partial<Record<keyof ThisThreadCrypto, unknown>>)[name];
  };
}
