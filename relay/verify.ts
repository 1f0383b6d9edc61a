import { getAuthenticatedDocumentLoader, verifyRequestDetailed, type KeyCache } from '@fedify/fedify';
import type { CryptographicKey, Multikey } from '@fedify/vocab';
import { getDocumentLoader, type DocumentLoader } from '@fedify/vocab-runtime';
import type { RelayActor } from './keys.js';

/** What edge verification decided for an inbox POST. */
export type EdgeVerdict =
  | { ok: true; keyId: string }
  /** The signature is missing, wrong, stale, or its key is gone for good: 401. */
  | { ok: false; status: 401; reason: string }
  /** The key could not be fetched right now: 503, so the peer tries again later. */
  | { ok: false; status: 503; reason: string };

const KEY_TTL_MS = 60 * 60 * 1000;

/** A failed key fetch as Fedify records it: the HTTP answer, or the error of the transport. */
type FetchFailure = { status: number; response: Response } | { error: Error };
/** A key that could not be fetched is tried again after this long (peers retry later anyway). */
const MISSING_KEY_TTL_MS = 60 * 1000;
const KEY_CACHE_SIZE = 10_000;

/**
 * Fedify's key cache, in memory, bounded: keys fetched for verification are kept an hour (a
 * signature that fails with a cached key makes Fedify fetch the key again, so a rotated key is
 * picked up), keys that could not be fetched for five minutes.
 */
class MemoryKeyCache implements KeyCache {
  private readonly entries = new Map<string, { key: CryptographicKey | Multikey | null; until: number }>();
  /** Why a key could not be fetched, kept beside its null entry (Fedify reads it to tell a gone key from a down server). */
  private readonly failures = new Map<string, FetchFailure>();

  getFetchError(keyId: URL): Promise<FetchFailure | undefined> {
    return Promise.resolve(this.entries.has(keyId.href) ? this.failures.get(keyId.href) : undefined);
  }

  setFetchError(keyId: URL, failure: FetchFailure | null): Promise<void> {
    if (failure) this.failures.set(keyId.href, failure);
    else this.failures.delete(keyId.href);
    return Promise.resolve();
  }

  get(keyId: URL): Promise<CryptographicKey | Multikey | null | undefined> {
    const entry = this.entries.get(keyId.href);
    if (!entry) return Promise.resolve(undefined);
    if (entry.until < Date.now()) {
      this.entries.delete(keyId.href);
      return Promise.resolve(undefined);
    }
    return Promise.resolve(entry.key);
  }

  set(keyId: URL, key: CryptographicKey | Multikey | null): Promise<void> {
    this.entries.delete(keyId.href);
    this.entries.set(keyId.href, { key, until: Date.now() + (key ? KEY_TTL_MS : MISSING_KEY_TTL_MS) });
    // Oldest first out (Map keeps insertion order; a set re-inserts).
    while (this.entries.size > KEY_CACHE_SIZE) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
      this.failures.delete(oldest);
    }
    return Promise.resolve();
  }
}

/** Whether a failed key fetch may succeed later (the peer is down or busy) rather than never. */
function transient(result: FetchFailure): boolean {
  if ('error' in result) return true;
  return result.status >= 500 || result.status === 408 || result.status === 429;
}

/**
 * Verifies inbox deliveries at the relay with Fedify (draft-cavage and RFC 9421 signatures, the
 * Digest or Content-Digest over the raw body, the Date or `created` within an hour), fetching
 * signers' keys with the relay's own signed GETs. The instance verifies again when the delivery is
 * replayed; this check only keeps what is not signed out of a tenant's queue.
 */
export class EdgeVerifier {
  private readonly keyCache = new MemoryKeyCache();
  private readonly documentLoader: DocumentLoader;
  private readonly contextLoader: DocumentLoader;

  constructor(actor: RelayActor, options: { allowPrivateAddress: boolean; userAgent: string }) {
    this.documentLoader = getAuthenticatedDocumentLoader(
      { keyId: new URL(actor.keyId), privateKey: actor.privateKey },
      { allowPrivateAddress: options.allowPrivateAddress, userAgent: options.userAgent },
    );
    this.contextLoader = getDocumentLoader({ allowPrivateAddress: options.allowPrivateAddress, userAgent: options.userAgent });
  }

  /** Verifies a request as received (its URL the tenant's origin and path, its body the raw bytes). */
  async verify(request: Request): Promise<EdgeVerdict> {
    let result;
    try {
      result = await verifyRequestDetailed(request, {
        documentLoader: this.documentLoader,
        contextLoader: this.contextLoader,
        keyCache: this.keyCache,
        timeWindow: { hours: 1 },
      });
    } catch (err) {
      return { ok: false, status: 401, reason: `unverifiable: ${(err as Error).message}` };
    }
    if (result.verified) return { ok: true, keyId: result.key.id?.href ?? '' };
    const reason = result.reason;
    if (reason.type === 'keyFetchError' && transient(reason.result)) {
      const why = 'error' in reason.result ? reason.result.error.message : `HTTP ${reason.result.status}`;
      return { ok: false, status: 503, reason: `key ${reason.keyId.href} could not be fetched: ${why}` };
    }
    if (reason.type === 'keyFetchError') return { ok: false, status: 401, reason: `key ${reason.keyId.href} is gone` };
    if (reason.type === 'noSignature') return { ok: false, status: 401, reason: 'no signature' };
    return { ok: false, status: 401, reason: 'signature does not verify' };
  }
}
