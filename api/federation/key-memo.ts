import type { Federation, KvKey, KvStore } from '@fedify/fedify';
import { CryptographicKey } from '@fedify/vocab';

type FromJsonLd = typeof CryptographicKey.fromJsonLd;
type ParseOptions = NonNullable<Parameters<FromJsonLd>[1]>;
// The constructor behind `clone` takes the parse options (tracer, base URL); its type names fewer.
type CloneOptions = Parameters<CryptographicKey['clone']>[1];

/** Parsed signer keys kept, at most: a peer's key is used by every activity it sends. */
const MAX_KEYS = 1000;

/** Key documents read from a federation's key cache, with the JSON text they are stored as. */
const cachedDocuments = new WeakMap<object, string>();
/** Keys parsed from those texts, without loaders (see parseOnce), least recently used first. */
const parsedKeys = new Map<string, CryptographicKey>();
let parsing: FromJsonLd | null = null;

function isKeyEntry(key: KvKey, prefix: KvKey): boolean {
  return key.length === prefix.length + 1 && prefix.every((part, i) => key[i] === part);
}

/**
 * Parses a key document once per distinct JSON text. Fedify's inbox verification keeps the signer's
 * key in its key-value store and, on every request, turns the stored JSON-LD back into a key with
 * `CryptographicKey.fromJsonLd`: a JSON-LD expansion and a WebCrypto import of the PEM, about a
 * third of a millisecond per activity, for the same few documents over and over. Documents read
 * from the key cache (marked by `reuseParsedKeys`) are parsed the first time and then rebuilt from
 * the parsed key (`clone`, which shares the imported CryptoKey) with the caller's loaders. A
 * rotated key is a different document, so it is parsed anew; anything else goes to Fedify.
 */
function parseOnce(original: FromJsonLd): FromJsonLd {
  return async function (this: typeof CryptographicKey, json: unknown, options: ParseOptions = {}): Promise<CryptographicKey> {
    const text = typeof json === 'object' && json !== null ? cachedDocuments.get(json) : undefined;
    if (text === undefined || this !== CryptographicKey) return original.call(this, json, options);
    const loaders = { documentLoader: options.documentLoader, contextLoader: options.contextLoader, tracerProvider: options.tracerProvider };
    const known = parsedKeys.get(text);
    if (known) {
      parsedKeys.delete(text);
      parsedKeys.set(text, known);
      return known.clone({}, { ...loaders, baseUrl: options.baseUrl ?? known.id ?? undefined } as CloneOptions);
    }
    const key = await original.call(this, json, options);
    // Kept without the loaders it was parsed with: they belong to one request's context.
    parsedKeys.set(text, key.clone({}, { baseUrl: options.baseUrl ?? key.id ?? undefined } as CloneOptions));
    if (parsedKeys.size > MAX_KEYS) parsedKeys.delete(parsedKeys.keys().next().value as string);
    return key;
  } as FromJsonLd;
}

/**
 * Lets Fedify reuse the signer keys it has already parsed (see `parseOnce`). Fedify builds its key
 * cache (`KvKeyCache`, not exported) over the federation's key-value store for each inbox request
 * and offers no option for it, so two internals are hooked: reads of the store under the key-cache
 * prefix (`kvPrefixes.publicKey`) mark the documents they return, and `CryptographicKey.fromJsonLd`
 * (shared by every federation in the process, wrapped once) parses a marked document once. Should a
 * later Fedify rename those internals, nothing breaks: it is merely as slow as before. Returns
 * whether the hooks are in place.
 */
export function reuseParsedKeys(federation: Federation<unknown>): boolean {
  const impl = federation as unknown as { kv?: KvStore; kvPrefixes?: { publicKey?: KvKey } };
  const kv = impl.kv;
  const prefix = impl.kvPrefixes?.publicKey;
  if (!kv || typeof kv.get !== 'function' || !Array.isArray(prefix) || typeof CryptographicKey.fromJsonLd !== 'function') return false;
  if (parsing === null || CryptographicKey.fromJsonLd !== parsing) {
    parsing = parseOnce(CryptographicKey.fromJsonLd);
    CryptographicKey.fromJsonLd = parsing;
  }
  const read = kv.get.bind(kv);
  kv.get = (<T>(key: KvKey): Promise<T | undefined> =>
    read<T>(key).then((value) => {
      // The text identifies the document: two reads of an unchanged key give the same text.
      if (typeof value === 'object' && value !== null && isKeyEntry(key, prefix)) cachedDocuments.set(value, JSON.stringify(value));
      return value;
    })) as KvStore['get'];
  return true;
}
