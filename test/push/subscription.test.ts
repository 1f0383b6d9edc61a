import { createRestAPIClient } from 'masto';
import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import { subscribeBody, userAgentKeys } from './helpers.js';

const PATH = '/api/v1/push/subscription';
const ENDPOINT = 'https://push.example/device/1';

/** Every alert the entity lists, off. */
const ALL_OFF = {
  mention: false,
  status: false,
  reblog: false,
  follow: false,
  follow_request: false,
  favourite: false,
  poll: false,
  update: false,
  'admin.sign_up': false,
  'admin.report': false,
  quote: false,
  quoted_update: false,
};

describe('/api/v1/push/subscription', () => {
  const env = useInstance(['alice', 'bob']);

  it('creates, shows, updates and removes the subscription of the token', async () => {
    const { inst, users: { alice } } = env();
    const keys = userAgentKeys();
    const created = await alice.client.post(PATH, subscribeBody(ENDPOINT, keys, { mention: true, favourite: true }, { standard: true, policy: 'followed' }));
    expect(created.status, created.text).toBe(200);
    const serverKey = (await inst.anon.get('/api/v2/instance')).body.configuration.vapid.public_key as string;
    expect(created.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      endpoint: ENDPOINT,
      standard: true,
      alerts: { ...ALL_OFF, mention: true, favourite: true },
      server_key: serverKey,
      policy: 'followed',
    });
    expect(Buffer.from(serverKey, 'base64url')).toHaveLength(65);
    // The same key as the Application entity's (deprecated) vapid_key.
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'push app', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'push' });
    expect(app.body.vapid_key).toBe(serverKey);

    const shown = await alice.client.get(PATH);
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual(created.body);

    // PUT replaces the alerts and policy (what is not given is off); the endpoint and keys stay.
    const updated = await alice.client.put(PATH, { data: { alerts: { follow: true }, policy: 'all' }, subscription: { endpoint: 'https://elsewhere.example/x' } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toEqual({ ...created.body, alerts: { ...ALL_OFF, follow: true }, policy: 'all' });

    const removed = await alice.client.delete(PATH);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({});
    const gone = await alice.client.get(PATH);
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: 'Record not found' });
    // Deleting again is fine, updating is not.
    expect((await alice.client.delete(PATH)).status).toBe(200);
    const put = await alice.client.put(PATH, { data: { alerts: { follow: true } } });
    expect(put.status).toBe(404);
    expect(put.body).toEqual({ error: 'Record not found' });
  });

  it('keeps one subscription per token: a new one replaces it, other tokens keep theirs', async () => {
    const { inst, users: { alice } } = env();
    const phone = inst.tokenFor(alice, 'push');
    const laptop = inst.tokenFor(alice, 'push read');
    const first = await alice.client.post(PATH, subscribeBody('https://push.example/phone-1', userAgentKeys(), { mention: true }), { token: phone });
    const onLaptop = await alice.client.post(PATH, subscribeBody('https://push.example/laptop', userAgentKeys(), { follow: true }), { token: laptop });
    const second = await alice.client.post(PATH, subscribeBody('https://push.example/phone-2', userAgentKeys(), { reblog: true }), { token: phone });
    expect(second.body.id).not.toBe(first.body.id);
    expect((await alice.client.get(PATH, { token: phone })).body).toMatchObject({ id: second.body.id, endpoint: 'https://push.example/phone-2', alerts: { reblog: true, mention: false } });
    expect((await alice.client.get(PATH, { token: laptop })).body).toMatchObject({ id: onLaptop.body.id, endpoint: 'https://push.example/laptop' });
    const rows = inst.deps.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM push_subscriptions WHERE user_id = @user_id').get({ user_id: alice.userId });
    expect(rows?.n).toBe(2);
    // Bob's token sees none of alice's.
    expect((await env().users.bob.client.get(PATH)).status).toBe(404);
  });

  it('typecasts alerts as Mastodon does, in forms and in JSON', async () => {
    const { inst, users: { bob } } = env();
    const token = inst.tokenFor(bob, 'push');
    const keys = userAgentKeys();
    const form: Record<string, string> = {
      'subscription[endpoint]': ENDPOINT,
      'subscription[keys][p256dh]': keys.p256dh,
      'subscription[keys][auth]': keys.auth,
      'subscription[standard]': '1',
      'data[alerts][mention]': 'true',
      'data[alerts][status]': '1',
      'data[alerts][reblog]': 'on',
      'data[alerts][follow]': 'yes',
      'data[alerts][favourite]': 'false',
      'data[alerts][poll]': '0',
      'data[alerts][update]': 'off',
      'data[alerts][follow_request]': 'f',
      'data[alerts][admin.sign_up]': 'no',
      'data[alerts][admin.report]': '',
      'data[alerts][not_a_type]': 'true',
      'data[policy]': 'follower',
    };
    const viaForm = await bob.client.request('POST', PATH, { form, token });
    expect(viaForm.status, viaForm.text).toBe(200);
    // Rails casts 'no' to true (only 0, f, false, off and their capitals are false), '' to nothing.
    expect(viaForm.body.alerts).toEqual({ ...ALL_OFF, mention: true, status: true, reblog: true, follow: true, 'admin.sign_up': true });
    expect(viaForm.body).toMatchObject({ standard: true, policy: 'follower' });
    expect(viaForm.body.alerts).not.toHaveProperty('not_a_type');

    const viaJson = await bob.client.post(
      PATH,
      {
        subscription: { endpoint: ENDPOINT, keys: { p256dh: keys.p256dh, auth: keys.auth }, standard: 'false' },
        data: { alerts: { mention: 1, status: 0, reblog: 'FALSE', follow: true, favourite: null, poll: 'F', quote: 'true', moderation_warning: 'on' } },
        policy: 'none',
      },
      { token },
    );
    expect(viaJson.status, viaJson.text).toBe(200);
    expect(viaJson.body.alerts).toEqual({ ...ALL_OFF, mention: true, follow: true, quote: true, moderation_warning: true });
    // The policy at the top level counts when data[policy] is absent (masto.js and the docs put it there).
    expect(viaJson.body).toMatchObject({ standard: false, policy: 'none' });

    // masto.js sends the admin alerts nested (its `admin: { signUp, report }`).
    const nested = await bob.client.put(PATH, { data: { alerts: { admin: { sign_up: true, report: 'true' } } } }, { token });
    expect(nested.body.alerts).toMatchObject({ 'admin.sign_up': true, 'admin.report': true, mention: false });
    // A PUT without data switches everything off and the policy back to all.
    const bare = await bob.client.request('PUT', PATH, { form: {}, token });
    expect(bare.body).toMatchObject({ alerts: ALL_OFF, policy: 'all' });
  });

  it('answers bad input as Mastodon does', async () => {
    const { users: { alice } } = env();
    const keys = userAgentKeys();
    const missing = await alice.client.post(PATH, { data: { alerts: { mention: true } } });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatch(/subscription/);

    const blank = await alice.client.post(PATH, { subscription: { endpoint: '', keys: {} } });
    expect(blank.status).toBe(422);
    expect(blank.body.error).toBe("Validation failed: Endpoint can't be blank, Key p256dh can't be blank, Key auth can't be blank");

    for (const endpoint of ['not a url', 'ftp://push.example/x', 'https://user:pw@push.example/x', 'mailto:a@b.example', 12]) {
      const res = await alice.client.post(PATH, { subscription: { endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } } });
      expect(res.status, String(endpoint)).toBe(422);
      expect(res.body.error).toBe('Validation failed: Endpoint is invalid');
    }
    // Plain http is for the loopback test mode only.
    const http = await alice.client.post(PATH, subscribeBody('http://push.example/x', keys, {}));
    expect(http.status).toBe(422);

    const notOnCurve = Buffer.alloc(65, 7);
    notOnCurve[0] = 4;
    for (const bad of [
      { p256dh: 'not base64!', auth: keys.auth },
      { p256dh: notOnCurve.toString('base64url'), auth: keys.auth },
      { p256dh: keys.p256dh.slice(0, 40), auth: keys.auth },
      { p256dh: keys.p256dh, auth: Buffer.alloc(8, 1).toString('base64url') },
    ]) {
      const res = await alice.client.post(PATH, { subscription: { endpoint: ENDPOINT, keys: bad } });
      expect(res.status, JSON.stringify(bad)).toBe(422);
      expect(res.body.error).toMatch(/^Validation failed: Keys are not a P-256 public key/);
    }
    // Standard base64 with padding is read as well as base64url.
    const padded = await alice.client.post(PATH, {
      subscription: { endpoint: ENDPOINT, keys: { p256dh: Buffer.from(keys.p256dh, 'base64url').toString('base64'), auth: Buffer.from(keys.auth, 'base64url').toString('base64') } },
    });
    expect(padded.status, padded.text).toBe(200);

    const policy = await alice.client.post(PATH, subscribeBody(ENDPOINT, keys, {}, { policy: 'friends' }));
    expect(policy.status).toBe(422);
    expect(policy.body.error).toMatch(/^Validation failed: Policy is not included in the list/);
    const putPolicy = await alice.client.put(PATH, { data: { policy: 'everyone' } });
    expect(putPolicy.status).toBe(422);
    // Nothing of the refused requests was stored: the last good subscription stands.
    expect((await alice.client.get(PATH)).body).toMatchObject({ policy: 'all', endpoint: ENDPOINT });
  });

  it('needs the push scope and a user token', async () => {
    const { inst, users: { alice } } = env();
    const body = subscribeBody(ENDPOINT, userAgentKeys(), { mention: true });
    const noPush = inst.tokenFor(alice, 'read write follow');
    for (const [method, json] of [['POST', body], ['GET', undefined], ['PUT', { data: {} }], ['DELETE', undefined]] as const) {
      const forbidden = await alice.client.request(method, PATH, { token: noPush, ...(json ? { json } : {}) });
      expect(forbidden.status, method).toBe(403);
      expect(forbidden.body).toEqual({ error: 'This action is outside the authorized scopes' });
      expect((await alice.client.request(method, PATH, { token: null, ...(json ? { json } : {}) })).status, method).toBe(401);
    }
    // An app token (client credentials) has no user to push to.
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'pusher', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'push' });
    const appToken = await inst.anon.request('POST', '/oauth/token', {
      form: { grant_type: 'client_credentials', client_id: app.body.client_id, client_secret: app.body.client_secret, scope: 'push' },
      skipSchema: true,
    });
    expect(appToken.status, appToken.text).toBe(200);
    const appOnly = await alice.client.post(PATH, body, { token: appToken.body.access_token });
    expect(appOnly.status).toBe(422);
  });

  it('drops the subscription when its token is revoked', async () => {
    const { inst, users: { alice } } = env();
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'phone', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read push' });
    expect(app.status).toBe(200);
    const issued = await inst.anon.request('POST', '/oauth/token', {
      form: { grant_type: 'password', client_id: app.body.client_id, client_secret: app.body.client_secret, username: alice.username, password: alice.password, scope: 'push' },
      skipSchema: true,
    });
    expect(issued.status, issued.text).toBe(200);
    const token = issued.body.access_token as string;
    const created = await alice.client.post(PATH, subscribeBody(ENDPOINT, userAgentKeys(), { mention: true }), { token });
    expect(created.status).toBe(200);
    const count = () => inst.deps.db.query<{ n: number }>('SELECT COUNT(*) AS n FROM push_subscriptions WHERE id = @id').get({ id: created.body.id })?.n;
    expect(count()).toBe(1);
    const revoked = await inst.anon.request('POST', '/oauth/revoke', {
      form: { client_id: app.body.client_id, client_secret: app.body.client_secret, token },
      skipSchema: true,
    });
    expect(revoked.status).toBe(200);
    expect(count()).toBe(0);
  });

  it('is driven by the masto.js client', async () => {
    const { inst, users: { alice } } = env();
    const token = inst.tokenFor(alice, 'push');
    const masto = createRestAPIClient({ url: inst.url, accessToken: token });
    const keys = userAgentKeys();
    const created = await masto.v1.push.subscription.create({
      subscription: { endpoint: ENDPOINT, keys: { p256dh: keys.p256dh, auth: keys.auth } },
      data: { alerts: { mention: true, follow: true, admin: { signUp: true, report: false } } },
      policy: 'follower',
    });
    expect(created).toMatchObject({ endpoint: ENDPOINT, policy: 'follower', serverKey: expect.any(String) });
    expect(created.alerts).toMatchObject({ mention: true, follow: true, reblog: false });
    // Its nested admin alerts arrived as Mastodon's dotted ones.
    expect((await alice.client.get(PATH, { token })).body.alerts).toMatchObject({ 'admin.sign_up': true, 'admin.report': false });
    const fetched = await masto.v1.push.subscription.fetch();
    expect(fetched.id).toBe(created.id);
    const updated = await masto.v1.push.subscription.update({ data: { alerts: { reblog: true } } });
    expect(updated.alerts).toMatchObject({ reblog: true, mention: false });
    await masto.v1.push.subscription.remove();
    await expect(masto.v1.push.subscription.fetch()).rejects.toMatchObject({ statusCode: 404 });
  });
});
