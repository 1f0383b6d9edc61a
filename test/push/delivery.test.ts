import { createECDH } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { setSetting } from '../../api/db/repos/settings.js';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { follow, post } from '../notifications/helpers.js';
import { openPush, PushService, subscribeBody, userAgentKeys, verifyVapidJwt, type ReceivedPush, type UserAgentKeys } from './helpers.js';

const PATH = '/api/v1/push/subscription';

/** Every alert on. */
const ALL_ALERTS = Object.fromEntries(
  ['mention', 'status', 'reblog', 'follow', 'follow_request', 'favourite', 'poll', 'update', 'admin.sign_up', 'admin.report', 'quote', 'quoted_update'].map((t) => [t, true]),
);

/** A subscribed device: its keys, its token and its name at the push service. */
interface Device {
  name: string;
  keys: UserAgentKeys;
  token: string;
}

describe('Web Push delivery to a push service on loopback', () => {
  let inst: TestInstance;
  let push: PushService;
  let alice: TestUser;
  let bob: TestUser;
  let serverKey: string;
  let devices = 0;

  /** Subscribes a new token of `user` with the given alerts and options. */
  const subscribe = async (user: TestUser, alerts: Record<string, unknown>, extra: { standard?: boolean; policy?: string } = {}): Promise<Device> => {
    const name = `device-${++devices}`;
    const keys = userAgentKeys();
    const token = inst.tokenFor(user, 'read write follow push');
    const res = await user.client.post(PATH, subscribeBody(push.endpoint(name), keys, alerts, extra), { token });
    expect(res.status, res.text).toBe(200);
    return { name, keys, token };
  };

  /** The next push the device receives (the `count`th), decrypted. */
  const nth = async (device: Device, count: number): Promise<{ raw: ReceivedPush; text: string; json: Record<string, unknown> }> => {
    const received = await push.waitFor(device.name, count);
    const raw = received[count - 1] as ReceivedPush;
    return { raw, ...openPush(raw, device.keys) };
  };

  beforeAll(async () => {
    // The loopback test mode lets the instance reach a push service on loopback over plain http.
    inst = await startInstance({ federationAllowLoopback: true });
    push = await PushService.start();
    alice = await inst.createUser('alice', { role: 'owner' });
    bob = await inst.createUser('bob');
    await inst.anon.patch('/api/v1/accounts/update_credentials', { display_name: 'Bobby Tables' }, { token: bob.token });
    serverKey = (await inst.anon.get('/api/v2/instance')).body.configuration.vapid.public_key as string;
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    await inst?.close();
    await push?.close();
  });

  it('pushes every kind of notification, encrypted for the device (RFC 8291), with Mastodon’s payload', async () => {
    const device = await subscribe(alice, ALL_ALERTS, { standard: true });
    const carol = await inst.createUser('carol');
    const kinds: string[] = [];
    const expectNext = async (type: string, title: RegExp, body?: string) => {
      kinds.push(type);
      const { raw, json, text } = await nth(device, kinds.length);
      expect(json, text).toMatchObject({ notification_type: type, access_token: device.token, preferred_locale: 'en' });
      expect(json.title).toMatch(title);
      if (body !== undefined) expect(json.body).toBe(body);
      return { raw, json, text };
    };

    // admin.sign_up: carol signed up after the device subscribed.
    await expectNext('admin.sign_up', /^carol signed up$/);

    expect((await bob.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
    const followed = await expectNext('follow', /^Bobby Tables followed you$/);
    // The notification's id, as a JSON number with all its digits, and the sender's avatar.
    const notifications = (await alice.client.get('/api/v1/notifications?types[]=follow')).body as { id: string; account: { avatar_static: string } }[];
    const followNotification = notifications[0];
    expect(followed.text).toContain(`"notification_id":${followNotification?.id}`);
    expect(followed.json.icon).toBe(followNotification?.account.avatar_static);
    // The request: aes128gcm, 48 hours to live, normal urgency, and a VAPID token signed with the
    // instance's key for the push service's origin.
    expect(followed.raw.headers).toMatchObject({ 'content-encoding': 'aes128gcm', 'content-type': 'application/octet-stream', ttl: '172800', urgency: 'normal' });
    const auth = /^vapid t=([^,]+), k=(.+)$/.exec(followed.raw.headers.authorization ?? '');
    expect(auth?.[2]).toBe(serverKey);
    const claims = verifyVapidJwt(auth?.[1] ?? '', serverKey);
    expect(claims.aud).toBe(push.base);
    expect(claims.exp * 1000).toBeGreaterThan(Date.now());
    expect(claims.sub).toMatch(/^(mailto:|https:)/);

    await post(bob, '@alice hello there, <b>friend</b> & co');
    await expectNext('mention', /^Bobby Tables mentioned you$/, '@alice hello there, <b>friend</b> & co');

    const mine = await post(alice, 'a post of mine');
    expect((await bob.client.post(`/api/v1/statuses/${mine.id}/favourite`)).status).toBe(200);
    await expectNext('favourite', /favourited your post/, 'a post of mine');
    expect((await bob.client.post(`/api/v1/statuses/${mine.id}/reblog`)).status).toBe(200);
    await expectNext('reblog', /boosted your post/);

    await follow(alice, bob, { notify: true });
    await post(bob, 'news from bob', { spoiler_text: 'cw: news' });
    // A content warning is shown instead of the text.
    await expectNext('status', /^Bobby Tables just posted$/, 'cw: news');
    await follow(alice, bob, { notify: false });

    const edited = await post(bob, 'first version');
    expect((await alice.client.post(`/api/v1/statuses/${edited.id}/reblog`)).status).toBe(200);
    expect((await bob.client.put(`/api/v1/statuses/${edited.id}`, { status: 'second version' })).status).toBe(200);
    await expectNext('update', /edited a post$/, 'second version');

    const quoting = await bob.client.post('/api/v1/statuses', { status: 'look at this', quoted_status_id: mine.id });
    expect(quoting.status, quoting.text).toBe(200);
    await expectNext('quote', /quoted your post/, 'look at this');

    const quoted = await post(bob, 'quotable');
    expect((await alice.client.post('/api/v1/statuses', { status: 'quoting bob', quoted_status_id: quoted.id })).status).toBe(200);
    expect((await bob.client.put(`/api/v1/statuses/${quoted.id}`, { status: 'quotable, edited' })).status).toBe(200);
    // The notification is about the quoting status (alice's), as Mastodon's is.
    await expectNext('quoted_update', /edited a post you quoted/, 'quoting bob');

    expect((await bob.client.post('/api/v1/reports', { account_id: carol.accountId, comment: 'spam' })).status).toBe(200);
    await expectNext('admin.report', /^Bobby Tables filed a report$/);

    expect((await alice.client.patch('/api/v1/accounts/update_credentials', { locked: true })).status).toBe(200);
    expect((await carol.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
    await expectNext('follow_request', /^carol asked to follow you$/);

    await post(alice, 'which one?', { poll: { options: ['this', 'that'], expires_in: 300 } });
    // The poll ends five minutes later; the scheduler announces it.
    setClockTo(Date.now() + 301_000);
    await expectNext('poll', /^Your poll has ended$/);

    expect(kinds).toHaveLength(12);
    // Everything sent was removed from the queue.
    await expect.poll(() => inst.deps.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM push_deliveries').get()?.n).toBe(0);
  });

  it('sends the aesgcm draft to a subscription that is not standard, as Mastodon does', async () => {
    const device = await subscribe(alice, { favourite: true });
    const mine = await post(alice, 'legacy');
    expect((await bob.client.post(`/api/v1/statuses/${mine.id}/favourite`)).status).toBe(200);
    const { raw, json } = await nth(device, 1);
    expect(json).toMatchObject({ notification_type: 'favourite', body: 'legacy', access_token: device.token });
    expect(raw.headers['content-encoding']).toBe('aesgcm');
    expect(raw.headers.encryption).toMatch(/^salt=[A-Za-z0-9_-]+$/);
    expect(raw.headers['crypto-key']).toMatch(new RegExp(`^dh=[A-Za-z0-9_-]+;p256ecdsa=${serverKey}$`));
    const jwt = /^WebPush (.+)$/.exec(raw.headers.authorization ?? '')?.[1] ?? '';
    expect(verifyVapidJwt(jwt, serverKey).aud).toBe(push.base);
  });

  it('pushes only the alerts asked for, from whom the policy allows', async () => {
    const dave = await inst.createUser('dave');
    const erin = await inst.createUser('erin');
    await follow(erin, dave);
    const followed = await subscribe(dave, { mention: true }, { policy: 'followed' });
    const followers = await subscribe(dave, { mention: true }, { policy: 'follower' });
    const nobody = await subscribe(dave, { mention: true }, { policy: 'none' });
    const everyone = await subscribe(dave, { mention: true, favourite: false });
    await follow(dave, bob);

    const daves = await post(dave, 'dave writes');
    expect((await bob.client.post(`/api/v1/statuses/${daves.id}/favourite`)).status).toBe(200);
    await post(erin, '@dave from a follower');
    await post(bob, '@dave from someone dave follows');
    const last = await nth(everyone, 2);
    expect(last.json.title).toMatch(/^Bobby Tables mentioned you$/);
    expect((await nth(everyone, 1)).json.title).toMatch(/^erin mentioned you$/);
    expect((await nth(followed, 1)).json.title).toMatch(/^Bobby Tables/);
    expect((await nth(followers, 1)).json.title).toMatch(/^erin/);
    // Give anything wrongly queued the time to arrive.
    await new Promise((r) => setTimeout(r, 500));
    expect(push.to(everyone.name)).toHaveLength(2);
    expect(push.to(followed.name)).toHaveLength(1);
    expect(push.to(followers.name)).toHaveLength(1);
    expect(push.to(nobody.name)).toHaveLength(0);
  });

  it('does not push a notification the notification policy filters', async () => {
    const frank = await inst.createUser('frank');
    const stranger = await inst.createUser('stranger');
    expect((await frank.client.patch('/api/v2/notifications/policy', { for_not_following: 'filter' })).status).toBe(200);
    await follow(frank, bob);
    const device = await subscribe(frank, { mention: true });
    await post(stranger, '@frank you do not know me');
    await post(bob, '@frank but you know me');
    expect((await nth(device, 1)).json.title).toMatch(/^Bobby Tables/);
    await new Promise((r) => setTimeout(r, 500));
    expect(push.to(device.name)).toHaveLength(1);
    // The filtered notification exists (as a request), it just was not pushed.
    expect((await frank.client.get('/api/v1/notifications/requests')).body).toHaveLength(1);
  });

  it('removes the subscription when the push service answers 410 or 404', async () => {
    for (const status of [410, 404]) {
      const device = await subscribe(alice, { favourite: true });
      push.answer(device.name, status);
      const mine = await post(alice, `gone ${status}`);
      expect((await bob.client.post(`/api/v1/statuses/${mine.id}/favourite`)).status).toBe(200);
      await nth(device, 1);
      await expect.poll(async () => (await alice.client.get(PATH, { token: device.token })).status).toBe(404);
      // Not retried.
      await new Promise((r) => setTimeout(r, 300));
      expect(push.to(device.name)).toHaveLength(1);
    }
  });

  it('retries a 500 and a 429 with back-off, then delivers', async () => {
    const device = await subscribe(alice, { favourite: true });
    push.answer(device.name, 500);
    const mine = await post(alice, 'try again');
    expect((await bob.client.post(`/api/v1/statuses/${mine.id}/favourite`)).status).toBe(200);
    await nth(device, 1);
    const row = () =>
      inst.deps.db.query<{ attempts: number; next_attempt_at: number; last_error: string | null }>('SELECT attempts, next_attempt_at, last_error FROM push_deliveries').get();
    await expect.poll(() => row()?.attempts).toBe(1);
    expect(row()?.last_error).toBe('answered 500');
    // The first retry waits at least 15 seconds.
    expect(row()?.next_attempt_at).toBeGreaterThan(Date.now() + 14_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(push.to(device.name)).toHaveLength(1);

    // A minute later (the server's clock), the scheduler sends it again: 429 this time.
    push.answer(device.name, 429);
    setClockTo(Date.now() + 60_000);
    await nth(device, 2);
    await expect.poll(() => row()?.attempts).toBe(2);
    setClockTo(Date.now() + 180_000);
    const third = await nth(device, 3);
    expect(third.json).toMatchObject({ notification_type: 'favourite', body: 'try again' });
    await expect.poll(() => row()).toBeUndefined();
    expect((await alice.client.get(PATH, { token: device.token })).status).toBe(200);
  });

  it('gives up after six attempts, and keeps the subscription', async () => {
    const device = await subscribe(alice, { favourite: true });
    push.answer(device.name, 502, 503, 500, 408, 500, 504);
    const mine = await post(alice, 'never arrives');
    expect((await bob.client.post(`/api/v1/statuses/${mine.id}/favourite`)).status).toBe(200);
    const attempts = () => inst.deps.db.query<{ attempts: number }>('SELECT attempts FROM push_deliveries').get()?.attempts;
    for (let n = 1; n <= 5; n++) {
      await nth(device, n);
      await expect.poll(attempts).toBe(n);
      // Past the longest pause before the next attempt (about five minutes before the last).
      setClockTo(now() + 10 * 60_000);
    }
    await nth(device, 6);
    await expect.poll(attempts).toBeUndefined();
    setClockTo(now() + 60 * 60_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect(push.to(device.name)).toHaveLength(6);
    expect((await alice.client.get(PATH, { token: device.token })).status).toBe(200);
  });
});

describe('Web Push across a restart', () => {
  let push: PushService;
  beforeAll(async () => {
    push = await PushService.start();
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    await push?.close();
  });

  it('sends after a restart what was waiting for a retry', async () => {
    // A data directory of the test's own: the instance leaves it in place when it closes.
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-push-restart-'));
    let inst: TestInstance = await startInstance({ federationAllowLoopback: true, dataDir });
    try {
      const alice = await inst.createUser('alice');
      const bob = await inst.createUser('bob');
      const keys = userAgentKeys();
      expect((await alice.client.post(PATH, subscribeBody(push.endpoint('restart'), keys, { follow: true }, { standard: true }))).status).toBe(200);
      push.answer('restart', 503);
      expect((await bob.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
      await push.waitFor('restart', 1);
      await expect.poll(() => inst.deps.db.query<{ attempts: number }>('SELECT attempts FROM push_deliveries').get()?.attempts).toBe(1);
      // Stop the instance without removing its data, and start it again on the same directory.
      await inst.close();
      inst = await startInstance({ federationAllowLoopback: true, dataDir });
      setClockTo(Date.now() + 60_000);
      const received = await push.waitFor('restart', 2);
      const payload = openPush(received[1] as ReceivedPush, keys).json;
      expect(payload).toMatchObject({ notification_type: 'follow', title: 'bob followed you', access_token: alice.token });
      await expect.poll(() => inst.deps.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM push_deliveries').get()?.n).toBe(0);
    } finally {
      await inst.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

describe('Web Push with a VAPID key node:crypto kept without its leading zero byte', () => {
  it('pads the private key back to 32 bytes and signs with it', async () => {
    const inst = await startInstance({ federationAllowLoopback: true });
    const push = await PushService.start();
    try {
      // About one key in 250 has a scalar starting with a zero byte, which getPrivateKey() drops.
      const scalar = Buffer.concat([Buffer.alloc(1), Buffer.from(createECDH('prime256v1').generateKeys()).subarray(0, 31)]);
      const ecdh = createECDH('prime256v1');
      ecdh.setPrivateKey(scalar);
      const publicKey = ecdh.getPublicKey().toString('base64url');
      setSetting(inst.deps.db, 'vapid_keys', { publicKey, privateKey: scalar.subarray(1).toString('base64url') });
      const alice = await inst.createUser('alice');
      const bob = await inst.createUser('bob');
      const keys = userAgentKeys();
      const created = await alice.client.post(PATH, subscribeBody(push.endpoint('short-key'), keys, { follow: true }, { standard: true }));
      expect(created.body.server_key).toBe(publicKey);
      expect((await bob.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
      const [received] = await push.waitFor('short-key', 1);
      const jwt = /^vapid t=([^,]+), k=/.exec(received?.headers.authorization ?? '')?.[1] ?? '';
      expect(verifyVapidJwt(jwt, publicKey).aud).toBe(push.base);
      expect(openPush(received as ReceivedPush, keys).json).toMatchObject({ notification_type: 'follow' });
    } finally {
      await inst.close();
      await push.close();
    }
  });
});
