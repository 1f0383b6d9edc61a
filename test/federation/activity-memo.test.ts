import { createFederation, generateCryptoKeyPair, MemoryKvStore, signJsonLd } from '@fedify/fedify';
import { Activity, Create } from '@fedify/vocab';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { reuseParsedActivities } from '../../api/federation/activity-memo.js';
import { FakeRemote, MASTODON_CONTEXT, PUBLIC, mastodonPerson, type FakeActor } from './fake-remote.js';
import { startFederated } from './helpers.js';
import { drain } from './replay.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

/**
 * Full parses of a Create from now on: `Activity.fromJsonLd` hands each one to `Create.fromJsonLd`
 * once (the spy calls through: nothing is faked).
 */
function countCreateParses(): () => number {
  const spy = vi.spyOn(Create, 'fromJsonLd');
  return () => spy.mock.calls.length;
}

/**
 * An inbound activity parsed once: Fedify parsed it three times (twice in the inbox request, once
 * more when the queue hands it to the listeners). If a Fedify upgrade renames the internals this
 * relies on, the first tests fail (the instance would still work, only slower).
 */
describe('inbound activities parsed once per JSON text', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it("hooks the federation's fetch and queue task and Activity.fromJsonLd", () => {
    const federation = createFederation<unknown>({ kv: new MemoryKvStore(), userAgent: { software: 'Hearth/test' } });
    expect(typeof (federation as unknown as { processQueuedTask?: unknown }).processQueuedTask).toBe('function');
    const before = Activity.fromJsonLd;
    expect(reuseParsedActivities(federation)).toBe(true);
    // Wrapped once per process: a second federation keeps the same wrapper.
    const wrapped = Activity.fromJsonLd;
    expect(reuseParsedActivities(createFederation<unknown>({ kv: new MemoryKvStore(), userAgent: { software: 'Hearth/test' } }))).toBe(true);
    expect(wrapped).not.toBe(before);
    expect(Activity.fromJsonLd).toBe(wrapped);
  });

  it('parses outside an inbox request or message as Fedify does, every time', async () => {
    const json = { '@context': 'https://www.w3.org/ns/activitystreams', id: 'https://peer.example/c/1', type: 'Create', actor: 'https://peer.example/u', object: { id: 'https://peer.example/n/1', type: 'Note', content: 'x' } };
    const parses = countCreateParses();
    const a = await Activity.fromJsonLd(json);
    const b = await Activity.fromJsonLd(json);
    expect(parses()).toBe(2);
    expect(a).toBeInstanceOf(Create);
    expect(b).not.toBe(a);
  });

  describe('on an instance, from a live peer', () => {
    let inst: Inst;
    let masto: FakeRemote;
    let kim: FakeActor;
    let lee: FakeActor;
    let seq = 0;
    const createOf = (extra: Record<string, unknown> = {}) => {
      seq += 1;
      const id = masto.url(`/users/kim/statuses/${seq}`);
      const note = { id, type: 'Note', attributedTo: kim.id, to: [PUBLIC], content: `<p>note ${seq}</p>`, published: new Date().toISOString(), ...extra };
      return { id, activity: { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: kim.id, to: [PUBLIC], object: note } };
    };
    const send = async (activity: Record<string, unknown>, signAs?: FakeActor): Promise<number> => {
      const status = await masto.send(inst.origin, kim, activity, signAs ? { signAs } : {});
      await drain(inst);
      return status;
    };
    const stored = (uri: string) => inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM statuses WHERE uri = ?').get(uri)?.n;
    const gets = (path: string) => masto.received.filter((r) => r.method === 'GET' && r.path === path);

    beforeAll(async () => {
      inst = await startFederated('127.0.0.3');
      masto = await FakeRemote.start('127.0.0.6');
      kim = await masto.actor('/users/kim', (a) => mastodonPerson(masto, a, 'kim'));
      lee = await masto.actor('/users/lee', (a) => mastodonPerson(masto, a, 'lee'));
      // The first activity fetches kim's key and actor; the counts below are for the steady state.
      const first = createOf();
      expect(await send(first.activity)).toBe(202);
      expect(stored(first.id)).toBe(1);
    });
    afterAll(async () => {
      await inst.close();
      await masto.close();
    });

    it('parses each activity once, and the listener gets the embedded Note without fetching it', async () => {
      const parses = countCreateParses();
      const sent = [createOf(), createOf(), createOf()];
      for (const { activity, id } of sent) {
        expect(await send(activity)).toBe(202);
        expect(stored(id)).toBe(1);
        expect(gets(new URL(id).pathname)).toHaveLength(0);
      }
      // Without reuse: 3 per activity (proof check, after the HTTP signature, queue).
      expect(parses()).toBe(sent.length);
    });

    it("gives the embedded objects the queue's loaders, as a fresh parse does", async () => {
      // Each parse's document loader is labelled with the parse's rank. A tag only referenced is
      // fetched by fromApNote's getTags with the Note's own loader: the last parse's (the queue's).
      const hooked = Activity.fromJsonLd;
      const usedBy: number[] = [];
      let rank = 0;
      vi.spyOn(Activity, 'fromJsonLd').mockImplementation(function (this: typeof Activity, json, options = {}) {
        const inner = options.documentLoader;
        if (this !== Activity || !inner) return hooked.call(this, json, options);
        const label = rank++;
        return hooked.call(this, json, { ...options, documentLoader: (url: string, o?: unknown) => (usedBy.push(label), inner(url, o as never)) });
      });
      const tagPath = `/tags/memo-${seq + 1}`;
      masto.serve(tagPath, { '@context': 'https://www.w3.org/ns/activitystreams', id: masto.url(tagPath), type: 'Hashtag', name: '#memo', href: masto.url('/tags/memo') });
      const parses = countCreateParses();
      const { activity, id } = createOf({ tag: [masto.url(tagPath)] });
      expect(await send(activity)).toBe(202);
      expect(stored(id)).toBe(1);
      expect(parses()).toBe(1);
      expect(gets(tagPath)).toHaveLength(1);
      // Proof check, after the HTTP signature, queue: the fetch went through the queue's loader.
      expect(rank).toBe(3);
      expect(usedBy).toEqual([2]);
    });

    it("reuses the request's parse of an activity with a Linked Data Signature (as Mastodon signs public posts)", async () => {
      const { activity, id } = createOf();
      const signed = await signJsonLd(activity, kim.keys.privateKey, new URL(kim.keyId), {});
      const parses = countCreateParses();
      expect(await send(signed as Record<string, unknown>)).toBe(202);
      expect(stored(id)).toBe(1);
      // The signature check parses it (as an Object, not reused), the request parses the verified,
      // compacted JSON, and the queue reuses that. Without reuse: 3.
      expect(parses()).toBe(2);
    });

    it('still refuses forged and mismatched signatures, and the same text sent properly then goes through once', async () => {
      const { activity, id } = createOf();
      // Signed with a key kim does not publish (same key id): refused, nothing stored.
      const forger = { ...kim, keys: await generateCryptoKeyPair('RSASSA-PKCS1-v1_5') };
      expect(await send(activity, forger)).toBe(401);
      // Signed by lee, an actor other than the activity's: refused.
      expect(await send(activity, lee)).toBe(401);
      expect(stored(id)).toBe(0);
      const parses = countCreateParses();
      expect(await send(activity)).toBe(202);
      expect(stored(id)).toBe(1);
      expect(parses()).toBe(1);
      // Delivered again: already processed, stored once.
      expect(await send(activity)).toBe(202);
      expect(stored(id)).toBe(1);
    });
  });
});
