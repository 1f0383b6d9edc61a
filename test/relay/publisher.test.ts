import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCustomEmoji } from '../../api/core/emojis/manage.js';
import { FakeRemote, mastodonPerson, type FakeActor } from '../federation/fake-remote.js';
import { eventually } from '../federation/helpers.js';
import { postStatus } from '../helpers/fixtures.js';
import { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { ffmpeg, form, picture, upload } from '../media/helpers.js';
import { httpRequest, RELAY_BACKENDS, RelayDatabases, startRelay, type RelayRig, type TestRelay } from './rig.js';

const AP = { accept: 'application/activity+json' };

/** A PNG of random noise (it does not compress: its size is about width × height × 3 bytes). */
function noise(width: number, height: number): Promise<Buffer> {
  return sharp(randomBytes(width * height * 3), { raw: { width, height, channels: 3 } }).png().toBuffer();
}

/** The path (and query) of a URL, as the relay keys its cache. */
function pathOf(url: string): string {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
}

/** An instance of a tenant of `relay`, on `dataDir` (kept across restarts), connected. */
async function startTenantInstance(relay: TestRelay, dataDir: string, code: string | null): Promise<TestInstance> {
  const inst = await startInstance({ dataDir, relay: relay.url, relayCode: code, federationAllowLoopback: true });
  expect(await inst.app.relay?.whenConnected(20_000)).toBe(true);
  return inst;
}

const databases = new RelayDatabases();
afterAll(() => databases.stop());

describe.each(RELAY_BACKENDS)('the public cache of an instance behind a relay on %s', (backend) => {
  const host = '127.0.0.11';
  let relay: RelayRig;
  /** The tenant's host (with the relay's port), and its id at the relay. */
  let tenant: string;
  let tenantId: string;
  let origin: string;
  let dataDir: string;
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  let peer: FakeRemote;
  let mona: FakeActor;
  /** Statuses and media made by the tests, by name. */
  const made: Record<string, { id: string; uri: string; media: string[] }> = {};

  const cached = async (key: string) => relay.relay.store.getCache(tenantId, key);
  const cachedText = async (key: string) => (await cached(key))?.body.toString('utf8') ?? null;
  /** A request to the instance's public host, which the relay answers. */
  const get = (path: string, headers: Record<string, string> = {}) => httpRequest(`${origin}${path}`, { headers });

  async function post(name: string, params: Record<string, unknown>, image = false, author: TestUser = alice): Promise<void> {
    const mediaIds: string[] = [];
    const media: string[] = [];
    if (image) {
      const res = await upload(author.client, await picture(64, 48, 'png'), { type: 'image/png', name: `${name}.png` });
      expect(res.status, res.text).toBe(200);
      mediaIds.push(res.body.id);
      media.push(res.body.url, res.body.preview_url);
    }
    const status = await postStatus(author.client, { ...params, ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}) });
    made[name] = { id: status.id, uri: status.uri, media };
  }

  beforeAll(async () => {
    relay = await startRelay({ databaseUrl: await databases.url(backend) });
    tenant = `${host}:${relay.port}`;
    origin = `http://${tenant}`;
    const code = await relay.addTenant(tenant);
    dataDir = mkdtempSync(join(tmpdir(), 'hearth-publisher-'));
    inst = await startTenantInstance(relay, dataDir, code);
    tenantId = (await relay.relay.store.tenantByHost(tenant))?.id ?? '';
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    peer = await FakeRemote.start('127.0.0.12');
    mona = await peer.actor('/users/mona', (a) => mastodonPerson(peer, a, 'mona'));
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await relay?.close();
    await peer?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('puts a status and its media on the relay before the Create that points at them leaves', async () => {
    const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}#follows/1`, type: 'Follow', actor: mona.id, object: `${origin}/users/alice` };
    expect(await peer.send(origin, mona, follow)).toBe(202);
    await eventually(async () => ((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as unknown[]).length === 1);
    const arrivals: { at: number; object: string }[] = [];
    peer.answerPosts('/inbox', (received) => {
      const object = received.body?.object as { id?: string } | undefined;
      if (received.body?.type === 'Create' && object?.id) arrivals.push({ at: Date.now(), object: object.id });
      return 202;
    });
    // Four pictures of noise (2.4 MB each, and their small versions): publishing them takes long
    // enough that a Create not waiting for it would reach the peer first.
    const mediaIds: string[] = [];
    const media: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await upload(alice.client, await noise(900, 900), { type: 'image/png', name: `noise-${i}.png` });
      expect(res.status, res.text).toBe(200);
      mediaIds.push(res.body.id);
      media.push(res.body.url, res.body.preview_url);
    }
    const status = await postStatus(alice.client, { status: 'Hello from behind the relay', visibility: 'public', media_ids: mediaIds });
    made.first = { id: status.id, uri: status.uri, media };
    const arrival = await eventually(() => arrivals.find((a) => a.object === made.first?.uri), 20_000);
    // What the Create points at was stored at the relay before the Create reached the peer.
    for (const key of [pathOf(made.first?.uri ?? ''), ...(made.first?.media ?? []).map(pathOf)]) {
      const entry = await cached(key);
      expect(entry, key).not.toBeNull();
      expect(entry?.updatedAt, key).toBeLessThanOrEqual(arrival.at);
    }
  });

  it('publishes a file too large for one tunnel frame in chunks, and keeps the tunnel up', async () => {
    // A minute of stereo PCM: about 10.6 MB, stored as uploaded (more than a frame's 8 MiB, less than 16 MiB).
    const wav = ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100', '-t', '60', '-ac', '2', '-c:a', 'pcm_s16le'], 'wav');
    expect(wav.length).toBeGreaterThan(9 * 1024 * 1024);
    const up = await upload(bob.client, wav, { version: 2, type: 'audio/wav', name: 'minute.wav' });
    expect([200, 202]).toContain(up.status);
    const done = await eventually(async () => {
      const r = await bob.client.get(`/api/v1/media/${up.body.id}`);
      return r.status === 200 ? r : undefined;
    }, 20_000);
    const status = await postStatus(bob.client, { status: 'A long tone', visibility: 'public', media_ids: [up.body.id] });
    // The status goes, and the file with it, byte for byte, though no one frame could carry it.
    await eventually(async () => await cached(pathOf(status.uri)), 20_000);
    await eventually(() => inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM relay_publish_queue').get()?.n === 0, 20_000);
    const file = await cached(pathOf(done.body.url));
    expect(file?.contentType).toBe('audio/wav');
    expect(file?.body.equals(wav)).toBe(true);
    expect(inst.app.relay?.report().connected).toBe(true);
  });

  it('serves WebFinger, discovery, actors, public statuses, collections and media from its cache while the instance is offline', async () => {
    const avatar = await alice.client.patch('/api/v1/accounts/update_credentials', undefined, {
      multipart: form({ avatar: { data: await picture(120, 120, 'png'), type: 'image/png' } }, { display_name: 'Alice Cached' }),
    });
    expect(avatar.status, avatar.text).toBe(200);
    await post('unlisted', { status: 'An unlisted note', visibility: 'unlisted' });
    await post('private', { status: 'For followers only: the secret garden', visibility: 'private' }, true);
    await post('direct', { status: '@bob the secret direct word', visibility: 'direct' }, true);
    await post('doomed', { status: 'This one goes away', visibility: 'public' });
    await post('edited', { status: 'The first draft', visibility: 'public' });
    expect((await alice.client.put(`/api/v1/statuses/${made.edited?.id}`, { status: 'The final words' })).status).toBe(200);
    expect((await alice.client.delete(`/api/v1/statuses/${made.doomed?.id}`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/statuses/${made.first?.id}/pin`)).status).toBe(200);
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`)).status).toBe(200);
    expect((await alice.client.post('/api/v1/featured_tags', { name: 'gardening' })).status).toBe(200);
    await post('poll', { status: 'Tea or coffee?', visibility: 'public', poll: { options: ['tea', 'coffee'], expires_in: 3600 } }, false, bob);
    const poll = (await bob.client.get(`/api/v1/statuses/${made.poll?.id}`)).body.poll;
    expect((await alice.client.post(`/api/v1/polls/${poll.id}/votes`, { choices: [1] })).status).toBe(200);

    const actor = `${origin}/users/alice`;
    const avatarPath = pathOf(avatar.body.avatar);
    // Everything reaches the relay in the background.
    await eventually(async () => (await cachedText('/users/alice'))?.includes('Alice Cached'), 20_000);
    await eventually(async () => await cached(avatarPath), 20_000);
    await eventually(async () => (await cachedText(pathOf(made.edited?.uri ?? '')))?.includes('The final words'), 20_000);
    await eventually(async () => (await cached(pathOf(made.doomed?.uri ?? '')))?.status === 410, 20_000);
    await eventually(async () => (await cachedText('/users/alice/collections/featured'))?.includes(made.first?.uri ?? '-'), 20_000);
    await eventually(async () => (await cachedText('/users/alice/following'))?.includes('"totalItems":1'), 20_000);
    await eventually(async () => (await cachedText('/users/alice/outbox?cursor='))?.includes(made.unlisted?.uri ?? '-'), 20_000);
    await eventually(async () => (await cachedText('/users/alice/outbox?cursor='))?.includes('The final words'), 20_000);
    await eventually(async () => (await cachedText('/users/alice/collections/tags'))?.includes('#gardening'), 20_000);
    const tallied = async () => JSON.parse((await cachedText(pathOf(made.poll?.uri ?? ''))) ?? '{}') as { oneOf?: { name: string; replies: { totalItems: number } }[] };
    await eventually(async () => (await tallied()).oneOf?.[1]?.replies.totalItems === 1, 20_000);

    await inst.close();

    // WebFinger: by handle in any spelling, and by actor URL.
    for (const resource of [`acct:alice@${tenant}`, `alice@${tenant}`, `acct:ALICE@${tenant}`, actor]) {
      const wf = await get(`/.well-known/webfinger?resource=${encodeURIComponent(resource)}`);
      expect(wf.status, resource).toBe(200);
      expect(wf.headers['x-hearth-relay']).toBe('cache');
      expect(JSON.parse(wf.text)).toMatchObject({ subject: `acct:alice@${tenant}`, links: expect.arrayContaining([expect.objectContaining({ rel: 'self', href: actor })]) });
    }
    const hostMeta = await get('/.well-known/host-meta');
    expect(hostMeta.status).toBe(200);
    expect(hostMeta.headers['content-type']).toMatch(/xrd\+xml/);
    expect(hostMeta.text).toContain(`${origin}/.well-known/webfinger?resource={uri}`);
    const links = await get('/.well-known/nodeinfo');
    expect(JSON.parse(links.text).links[0].href).toBe(`${origin}/nodeinfo/2.0`);
    const nodeinfo = await get('/nodeinfo/2.0');
    expect(nodeinfo.headers['x-hearth-relay']).toBe('cache');
    expect(JSON.parse(nodeinfo.text)).toMatchObject({ software: { name: 'hearth' }, usage: { users: { total: 2 } } });
    expect((await get('/nodeinfo/2.1')).status).toBe(200);

    // The actor with its new avatar, the instance actor, and the avatar's bytes.
    const person = await get('/users/alice', AP);
    expect(person.status).toBe(200);
    expect(person.headers['x-hearth-relay']).toBe('cache');
    expect(person.headers['content-type']).toMatch(/activity\+json/);
    expect(JSON.parse(person.text)).toMatchObject({ id: actor, name: 'Alice Cached', icon: { url: avatar.body.avatar }, publicKey: { id: `${actor}#main-key` } });
    const instanceActor = await get('/users/instance.actor', AP);
    expect(JSON.parse(instanceActor.text)).toMatchObject({ id: `${origin}/users/instance.actor`, type: 'Application' });
    const avatarFile = await get(avatarPath);
    expect(avatarFile.status).toBe(200);
    expect(avatarFile.headers['content-type']).toBe('image/png');
    expect(avatarFile.headers['x-hearth-relay']).toBe('cache');

    // Public and unlisted statuses, the edited one as edited, and a public post's image (original and small).
    for (const name of ['first', 'unlisted', 'edited']) {
      const note = await get(pathOf(made[name]?.uri ?? ''), AP);
      expect(note.status, name).toBe(200);
      expect(note.headers['x-hearth-relay']).toBe('cache');
      expect(JSON.parse(note.text)).toMatchObject({ id: made[name]?.uri, type: 'Note', attributedTo: actor });
    }
    expect(JSON.parse((await get(pathOf(made.edited?.uri ?? ''), AP)).text).content).toContain('The final words');
    for (const url of made.first?.media ?? []) {
      const file = await get(pathOf(url));
      expect(file.status, url).toBe(200);
      expect(file.headers['content-type']).toMatch(/^image\//);
      expect(file.headers['x-hearth-relay']).toBe('cache');
    }

    // A deleted status: 410 with its Tombstone.
    const gone = await get(pathOf(made.doomed?.uri ?? ''), AP);
    expect(gone.status).toBe(410);
    expect(gone.headers['x-hearth-relay']).toBe('cache');
    expect(JSON.parse(gone.text)).toMatchObject({ id: made.doomed?.uri, type: 'Tombstone', formerType: 'Note', deleted: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });

    // Collections: the outbox and its first page, follower and following totals, the pinned statuses.
    const outbox = JSON.parse((await get('/users/alice/outbox', AP)).text);
    expect(outbox).toMatchObject({ type: 'OrderedCollection', totalItems: 3, first: `${origin}/users/alice/outbox?cursor=` });
    const page = await get('/users/alice/outbox?cursor=', AP);
    expect(page.headers['x-hearth-relay']).toBe('cache');
    const items = (JSON.parse(page.text) as { orderedItems: { object: { id: string } }[] }).orderedItems.map((i) => i.object.id);
    expect(items).toEqual([made.edited?.uri, made.unlisted?.uri, made.first?.uri]);
    expect(JSON.parse((await get('/users/alice/followers', AP)).text)).toMatchObject({ totalItems: 1 });
    expect(JSON.parse((await get('/users/alice/followers?cursor=', AP)).text).orderedItems).toEqual([mona.id]);
    expect(JSON.parse((await get('/users/alice/following', AP)).text)).toMatchObject({ totalItems: 1 });
    const featured = JSON.parse((await get('/users/alice/collections/featured', AP)).text);
    expect(featured).toMatchObject({ totalItems: 1, orderedItems: [expect.objectContaining({ id: made.first?.uri })] });
    const tags = JSON.parse((await get('/users/alice/collections/tags', AP)).text);
    expect(tags).toMatchObject({ totalItems: 1 });
    expect(JSON.stringify(tags)).toContain('#gardening');
    // A poll with the vote it got.
    const question = JSON.parse((await get(pathOf(made.poll?.uri ?? ''), AP)).text);
    expect(question).toMatchObject({ type: 'Question', oneOf: [{ name: 'tea', replies: { totalItems: 0 } }, { name: 'coffee', replies: { totalItems: 1 } }] });
  });

  it('never caches followers-only or direct statuses, nor their media', async () => {
    for (const name of ['private', 'direct']) {
      const path = pathOf(made[name]?.uri ?? '');
      const res = await get(path, AP);
      // Offline and not cached: 503, never the status.
      expect(res.status, name).toBe(503);
      expect(res.text).not.toMatch(/secret/);
      expect(await cached(path)).toBeNull();
      for (const url of made[name]?.media ?? []) {
        expect((await get(pathOf(url))).status, url).toBe(503);
        expect(await cached(pathOf(url))).toBeNull();
      }
    }
    // Nor do the collections mention them.
    expect(await cachedText('/users/alice/outbox?cursor=')).not.toMatch(/secret/);
  });

  it('catches up after the tunnel comes back, and after a restart, with what changed meanwhile', async () => {
    inst = await startTenantInstance(relay, dataDir, null);
    // bob has no followers: nothing waits for the tunnel to deliver while the relay is away.
    bob = { ...bob, client: new TestClient(inst.url, bob.token) };
    // Command-line changes emit no events here: the emojis are looked at on every start.
    const png = join(dataDir, 'blobcat.png');
    writeFileSync(png, await picture(32, 32, 'png'));
    const emoji = await addCustomEmoji(inst.deps, { shortcode: 'blobcat', file: png });

    await relay.stop();
    await post('whileDown', { status: 'Written while the relay was away', visibility: 'public' }, false, bob);
    await relay.restart();
    expect(await inst.app.relay?.whenConnected(20_000)).toBe(true);
    await eventually(async () => (await cachedText(pathOf(made.whileDown?.uri ?? '')))?.includes('while the relay was away'), 20_000);

    await relay.stop();
    await post('beforeRestart', { status: 'Written just before a restart', visibility: 'unlisted' }, false, bob);
    await inst.close();
    await relay.restart();
    inst = await startTenantInstance(relay, dataDir, null);
    // The mark survived the restart in the queue.
    await eventually(async () => (await cachedText(pathOf(made.beforeRestart?.uri ?? '')))?.includes('just before a restart'), 20_000);
    const emojiPath = pathOf(inst.deps.uris.fileUrl(emoji.image_file ?? ''));
    await eventually(async () => await cached(emojiPath), 20_000);
    await inst.close();
    const note = await get(pathOf(made.beforeRestart?.uri ?? ''), AP);
    expect(note.status).toBe(200);
    expect(note.headers['x-hearth-relay']).toBe('cache');
    const emojiFile = await get(emojiPath);
    expect(emojiFile.status).toBe(200);
    expect(emojiFile.headers['content-type']).toBe('image/png');
  });
});

describe.each(RELAY_BACKENDS)('the first enrolment of an instance that has posted before, on %s', (backend) => {
  it('publishes everything public it has', async () => {
    const relay = await startRelay({ databaseUrl: await databases.url(backend) });
    const host = `127.0.0.13:${relay.port}`;
    const origin = `http://${host}`;
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-publisher-first-'));
    try {
      // Before the relay: the same origin, served some other way.
      const before = await startInstance({ dataDir, origin, federationAllowLoopback: true });
      const carol = await before.createUser('carol');
      const old = await postStatus(carol.client, { status: 'An old public post', visibility: 'public' });
      const hidden = await postStatus(carol.client, { status: 'An old private post', visibility: 'private' });
      await before.close();

      const code = await relay.addTenant(host);
      const inst = await startTenantInstance(relay, dataDir, code);
      const tenant = (await relay.relay.store.tenantByHost(host))?.id ?? '';
      await eventually(async () => (await relay.relay.store.getCache(tenant, pathOf(old.uri)))?.body.toString('utf8').includes('An old public post'), 20_000);
      await eventually(async () => await relay.relay.store.getCache(tenant, `/.well-known/webfinger?resource=acct:carol@${host}`), 20_000);
      await inst.close();
      const wf = await httpRequest(`${origin}/.well-known/webfinger?resource=acct:carol@${host}`);
      expect(wf.status).toBe(200);
      expect(wf.headers['x-hearth-relay']).toBe('cache');
      expect((await httpRequest(`${origin}${pathOf(old.uri)}`, { headers: AP })).status).toBe(200);
      expect((await httpRequest(`${origin}${pathOf(hidden.uri)}`, { headers: AP })).status).toBe(503);
    } finally {
      await relay.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
