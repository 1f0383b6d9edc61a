// Tweaks for a background thread that must yield a shared core to the main thread.
import { createHash, KeyObject, sign as signSync, type webcrypto } from 'node:crypto';
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

/**
 * Makes WebCrypto's RSA PKCS#1 v1.5 signing run on this thread. Node runs WebCrypto jobs on libuv's
 * pool, whose threads have the main thread's priority, so each signature (about 0.3 ms) would
 * again compete with the REST API for a shared core. Node's synchronous `crypto.sign` computes
 * the same deterministic signature here, at this thread's lower priority. Other algorithms keep
 * WebCrypto's path. SHA digests are computed here too. Returns the function that restores
 * WebCrypto's own.
 */
export function cryptoOnThisThread(): () => void {
  const subtle = globalThis.crypto.subtle;
  const viaPool = subtle.sign.bind(subtle);
  const sign: webcrypto.SubtleCrypto['sign'] = (algorithm, key, data) => {
    const name = typeof algorithm === 'string' ? algorithm : algorithm.name;
    const hash = (key.algorithm as webcrypto.RsaHashedKeyAlgorithm).hash?.name;
    if (name !== 'RSASSA-PKCS1-v1_5' || key.type !== 'private' || !key.usages.includes('sign') || !hash?.startsWith('SHA-')) {
      return viaPool(algorithm, key, data);
    }
    try {
      const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
      const signature = signSync(hash.replace('-', '').toLowerCase(), bytes, KeyObject.from(key));
      return Promise.resolve(signature.buffer.slice(signature.byteOffset, signature.byteOffset + signature.byteLength) as ArrayBuffer);
    } catch (err) {
      return Promise.reject(err);
    }
  };
  // SHA digests (the Digest header of each delivery) likewise: microseconds of work, for which
  // a trip through the pool costs more than the hash.
  const digestViaPool = subtle.digest.bind(subtle);
  const digest: webcrypto.SubtleCrypto['digest'] = (algorithm, data) => {
    const name = typeof algorithm === 'string' ? algorithm : algorithm.name;
    if (!/^SHA-(1|256|384|512)$/.test(name)) return digestViaPool(algorithm, data);
    try {
      const bytes = ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);
      const hash = createHash(name.replace('-', '').toLowerCase()).update(bytes).digest();
      return Promise.resolve(hash.buffer.slice(hash.byteOffset, hash.byteOffset + hash.byteLength) as ArrayBuffer);
    } catch (err) {
      return Promise.reject(err);
    }
  };
  Object.defineProperty(subtle, 'sign', { value: sign, configurable: true, writable: true });
  Object.defineProperty(subtle, 'digest', { value: digest, configurable: true, writable: true });
  return () => {
    delete (subtle as { sign?: unknown }).sign;
    delete (subtle as { digest?: unknown }).digest;
  };
}
