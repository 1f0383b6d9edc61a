import type { Federation } from '@fedify/fedify';
import type { DocumentLoader } from '@fedify/vocab-runtime';

type LoaderFactory = (options?: unknown) => DocumentLoader;

/**
 * Lets jsonld keep processed JSON-LD contexts between documents. jsonld caches a resolved
 * `@context` URL across expansions only when the context loader marks the document `tag:
 * 'static'`; Fedify's loader does not, so every activity, actor and key parsed re-resolved and
 * re-processed the ActivityStreams, security and Mastodon contexts (about a third of the CPU time
 * of an inbound activity). Contexts are versioned vocabularies that do not change under a URL, and
 * jsonld's cache is bounded (an LRU of 100), so every context the loader returns is marked static.
 *
 * Fedify offers no option for this that can be combined with `allowPrivateAddress` and
 * `userAgent`, so the federation's loader factories are wrapped after creation (and reused, see
 * `memoized`). Should a later Fedify rename those internals, nothing breaks: it is merely as slow
 * as before. Returns whether the wrapping took place.
 */
export function keepContextsStatic(federation: Federation<unknown>): boolean {
  const impl = federation as unknown as { contextLoaderFactory?: LoaderFactory; documentLoaderFactory?: LoaderFactory };
  const contexts = impl.contextLoaderFactory;
  const documents = impl.documentLoaderFactory;
  if (typeof contexts !== 'function' || typeof documents !== 'function') return false;
  impl.contextLoaderFactory = memoized((options) => {
    const loader = contexts.call(impl, options);
    return async (url, loaderOptions) => ({ ...(await loader(url, loaderOptions)), tag: 'static' }) as Awaited<ReturnType<DocumentLoader>>;
  });
  impl.documentLoaderFactory = memoized((options) => documents.call(impl, options));
  return true;
}

/**
 * Fedify builds a new loader (a cache wrapper compiling a URL pattern, and instrumentation) each
 * time it creates a context, several times per inbound activity, for the same few options. The
 * loaders keep no state of their own (their cache is the key-value store), so one per distinct
 * set of options is reused.
 */
function memoized(factory: LoaderFactory): LoaderFactory {
  const made = new Map<string, DocumentLoader>();
  return (options?: unknown) => {
    const key = JSON.stringify(options ?? null);
    let loader = made.get(key);
    if (!loader) {
      loader = factory(options);
      // Options are a handful of fixed combinations; a bound keeps a surprise from growing it.
      if (made.size < 64) made.set(key, loader);
    }
    return loader;
  };
}
