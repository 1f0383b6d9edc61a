import { createFederation, MemoryKvStore } from '@fedify/fedify';
import { describe, expect, it } from 'vitest';
import { keepContextsStatic } from '../../api/federation/static-contexts.js';

type Loader = (url: string) => Promise<{ tag?: string; document: unknown }>;
type Factories = { contextLoaderFactory: (o?: unknown) => Loader; documentLoaderFactory: (o?: unknown) => Loader };

/**
 * The loader wrapping that lets jsonld keep processed contexts: if a Fedify upgrade renames the
 * internals it relies on, this fails (the instance would still work, only slower).
 */
describe('static JSON-LD contexts and reused loaders', () => {
  it('wraps the federation loaders: contexts come back static, loaders are made once per options', async () => {
    const federation = createFederation<unknown>({ kv: new MemoryKvStore(), userAgent: { software: 'Hearth/test' } });
    const impl = federation as unknown as Factories;
    expect((await impl.contextLoaderFactory()('https://www.w3.org/ns/activitystreams')).tag).toBeUndefined();
    expect(impl.contextLoaderFactory({ allowPrivateAddress: false }) === impl.contextLoaderFactory({ allowPrivateAddress: false })).toBe(false);

    expect(keepContextsStatic(federation)).toBe(true);
    const contexts = impl.contextLoaderFactory({ allowPrivateAddress: false });
    const doc = await contexts('https://www.w3.org/ns/activitystreams');
    expect(doc.tag).toBe('static');
    expect(JSON.stringify(doc.document)).toContain('"Note"');
    expect(impl.contextLoaderFactory({ allowPrivateAddress: false })).toBe(contexts);
    expect(impl.contextLoaderFactory({ allowPrivateAddress: true })).not.toBe(contexts);
    expect(impl.documentLoaderFactory({ allowPrivateAddress: false })).toBe(impl.documentLoaderFactory({ allowPrivateAddress: false }));
  });
});
