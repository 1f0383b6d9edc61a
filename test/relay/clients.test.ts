import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOAuthAPIClient, createRestAPIClient, createStreamingAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_CLIENT_RATE_LIMIT, resolveRelayConfig } from '../../relay/config.js';
import { bucketKey } from '../../relay/rate-limit.js';
import { eventually } from '../federation/helpers.js';
import { Browser } from '../helpers/browser.js';
import { picture } from '../media/helpers.js';
import { authorizePath, codeFromRedirect, REDIRECT, signIn, type RegisteredApp } from '../oauth/flow.js';
import { openEventStream, phoneRequest, spawnRelayedInstance, startRelayWith, type ChildInstance } from './phone-rig.js';
import { startRelay, type TestRelay } from './rig.js';

const ALICE = { username: 'alice', password: 'alice-password-123' };
const BOB = { username: 'bob', password: 'bob-password-123' };
const ZED = { username: 'zed', password: 'zed-password-123' };

/** What a WebSocket upgrade came to: opened (then closed with `closed`), or refused with a status. */
interface Upgrade {
  socket: WebSocket | null;
  status: number;
  body: string;
  protocol: string;
  closed: Promise<number>;
}

/** Opens a WebSocket as a phone would, and reports the handshake's outcome. */
function upgrade(url: string, options: { protocols?: string[]; localAddress?: string } = {}): Promise<Upgrade> {
  return new Promise((done, reject) => {
    const socket = new WebSocket(url, options.protocols ?? [], { localAddress: options.localAddress });
    const closed = new Promise<number>((c) => socket.on('close', (code) => c(code)));
    socket.on('open', () => done({ socket, status: 101, body: '', protocol: socket.protocol, closed }));
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => {
        done({ socket: null, status: res.statusCode ?? 0, body, protocol: '', closed });
        socket.terminate();
      });
    });
    socket.on('error', (err) => reject(err));
  });
}

/** Reads a masto subscription in the background. */
function collect(subscription: mastodon.streaming.Subscription): mastodon.streaming.Event[] {
  const events: mastodon.streaming.Event[] = [];
  void (async () => {
    for await (const event of subscription) events.push(event);
  })().catch(() => {});
  return events;
}

describe('phones through the relay (--relay-clients)', () => {
  let relay: TestRelay;
  let phone: ChildInstance;
  let masto: mastodon.rest.Client;
  let token = '';
  beforeAll(async () => {
    relay = await startRelay();
    phone = await spawnRelayedInstance(relay, '127.0.0.5', { clients: true, users: [ALICE] });
  }, 60_000);
  afterAll(async () => {
    await phone?.close();
    await relay?.close();
  });

  it('lets masto register an app and get a token through the OAuth pages at the public origin', async () => {
    const app = await createRestAPIClient({ url: phone.origin }).v1.apps.create({ clientName: 'phone app', redirectUris: REDIRECT, scopes: 'read write' });
    expect(app.clientId).toBeTruthy();

    // The pages are served at the public host and point there: the forms post to the public origin,
    // and nothing names the instance's own listener.
    const browser = new Browser(phone.origin);
    const registered = { client_id: app.clientId ?? '', redirect_uris: [REDIRECT] } as RegisteredApp;
    const login = await browser.get(authorizePath(registered, { scope: 'read write' }));
    expect(login.status).toBe(200);
    expect(new URL(login.url).origin).toBe(phone.origin);
    expect(new URL(login.forms[0]?.action ?? '', login.url).href).toBe(`${phone.origin}/auth/sign_in`);
    const consent = await signIn(browser, login, ALICE.username, ALICE.password);
    expect(consent.status, consent.text.slice(0, 300)).toBe(200);
    expect(new URL(consent.url).origin).toBe(phone.origin);
    expect(new URL(consent.forms[0]?.action ?? '', consent.url).href).toBe(`${phone.origin}/oauth/authorize`);
    expect(consent.text).toContain(`@alice@${new URL(phone.origin).host}`);
    expect(consent.text).not.toContain(new URL(phone.url).host);
    const { code, url } = codeFromRedirect(await browser.submit(consent, {}, { action: '/oauth/authorize', press: 'Authorize' }));
    expect(url.href.startsWith(REDIRECT)).toBe(true);

    const issued = await createOAuthAPIClient({ url: phone.origin }).token.create({
      grantType: 'authorization_code',
      clientId: app.clientId ?? '',
      clientSecret: app.clientSecret ?? '',
      redirectUri: REDIRECT,
      code: code ?? '',
      scope: 'read write',
    });
    token = issued.accessToken;
    masto = createRestAPIClient({ url: phone.origin, accessToken: token });
    const me = await masto.v1.accounts.verifyCredentials();
    expect(me.username).toBe('alice');
    expect(me.url).toBe(`${phone.origin}/@alice`);
  });

  it('uploads media (a multipart body streamed through the tunnel), posts it, and reads the home timeline', async () => {
    // Noise compresses badly: the upload is several tunnel chunks long.
    const png = await picture(900, 700, 'png', (s) => s.png({ compressionLevel: 0 }));
    expect(png.length).toBeGreaterThan(1024 * 1024);
    const media = await masto.v2.media.create({ file: new Blob([new Uint8Array(png)], { type: 'image/png' }), description: 'from the phone' });
    expect(media.type).toBe('image');
    expect(media.meta?.original).toMatchObject({ width: 900, height: 700 });
    expect(media.url?.startsWith(`${phone.origin}/system/`)).toBe(true);
    const file = await phoneRequest(media.url ?? '');
    expect(file.status).toBe(200);
    expect(file.headers['content-type']).toBe('image/png');

    const status = await masto.v1.statuses.create({ status: 'posted from my phone, far from home', mediaIds: [media.id] });
    expect(status.url?.startsWith(`${phone.origin}/@alice/`)).toBe(true);
    const home = await masto.v1.timelines.home.list({ limit: 5 });
    expect(home[0]?.id).toBe(status.id);
    expect(home[0]?.mediaAttachments.map((m) => m.description)).toEqual(['from the phone']);
  });

  it('streams over WebSocket through the relay (masto), apart from the tunnels', async () => {
    const instance = await masto.v2.instance.fetch();
    expect(instance.configuration.urls.streaming).toBe(phone.origin.replace('http:', 'ws:'));
    const streaming = createStreamingAPIClient({ streamingApiUrl: instance.configuration.urls.streaming, accessToken: token, retry: false });
    try {
      const events = collect(streaming.user.subscribe());
      // masto subscribes by a message after the socket opened: post until the subscription is in place.
      let seen = false;
      for (let attempt = 0; attempt < 20 && !seen; attempt++) {
        const status = await masto.v1.statuses.create({ status: `while streaming ${attempt}` });
        seen = await eventually(() => events.some((e) => e.event === 'update' && e.payload.id === status.id), 1000).then(
          () => true,
          () => false,
        );
      }
      expect(seen).toBe(true);
      // The relay's tunnel server holds the tunnel only (its heartbeat would drop anything else).
      expect(relay.relay.tunnels.wss.clients.size).toBe(1);
    } finally {
      streaming.close();
    }
  });

  it('echoes the subprotocol the instance accepted (masto sends the token as one), and passes on its refusals', async () => {
    const ws = `${phone.origin.replace('http:', 'ws:')}/api/v1/streaming?stream=user`;
    const opened = await upgrade(ws, { protocols: [token] });
    expect(opened.status).toBe(101);
    expect(opened.protocol).toBe(token);
    opened.socket?.close();
    const refused = await upgrade(`${ws}&access_token=not-a-token`);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body)).toEqual({ error: expect.stringMatching(/token/i) });
  });

  it('streams server-sent events through the relay', async () => {
    const stream = await openEventStream(`${phone.origin}/api/v1/streaming/user`, { authorization: `Bearer ${token}` });
    try {
      expect(stream.status).toBe(200);
      expect(stream.headers['content-type']).toMatch(/^text\/event-stream/);
      // The first comment comes once the stream is subscribed.
      await stream.until(/^:\)/);
      const status = await masto.v1.statuses.create({ status: 'an event through the relay' });
      await stream.until(new RegExp(`event: update\\ndata: \\{"id":"${status.id}"`));
    } finally {
      stream.close();
    }
  });

  it('never carries first-run setup, which trusts a loopback peer', async () => {
    // No owner yet: the instance's own listener shows the form...
    expect((await phoneRequest(`${phone.url}/setup`)).status).toBe(200);
    // ...but not to the internet, however the path is spelled.
    for (const path of ['/setup', '/SETUP/', '/%73etup?x=1']) {
      const res = await phoneRequest(`${phone.origin}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.text).not.toContain('csrf');
    }
    const ws = await upgrade(`${phone.origin.replace('http:', 'ws:')}/setup`);
    expect(ws.status).toBe(404);
  });

  it('makes carried requests to the instance only, never to a host a path names', async () => {
    let hits = 0;
    const bystander: Server = createServer((_req, res) => {
      hits++;
      res.end('reached');
    });
    await new Promise<void>((r) => bystander.listen(0, '127.0.0.1', () => r()));
    const port = (bystander.address() as AddressInfo).port;
    try {
      // Both look like public paths (/users/…) to the relay, which carries them to the connector.
      for (const path of [`//127.0.0.1:${port}/users/x`, `http://127.0.0.1:${port}/users/x`]) {
        const res = await phoneRequest(phone.origin, { path });
        expect(res.status, path).toBe(400);
      }
      expect(hits).toBe(0);
    } finally {
      bystander.close();
    }
  });

  it('while the instance is offline: 503 with a Mastodon-style error, upgrades refused, open streams closed', async () => {
    const ws = `${phone.origin.replace('http:', 'ws:')}/api/v1/streaming?stream=user`;
    const open = await upgrade(ws, { protocols: [token] });
    expect(open.status).toBe(101);
    const sse = await openEventStream(`${phone.origin}/api/v1/streaming/user`, { authorization: `Bearer ${token}` });
    await sse.until(/^:\)/);

    await phone.stop();
    // The streaming connections end with the instance.
    expect(await open.closed).toBeGreaterThanOrEqual(1000);
    await sse.ended;

    const api = await phoneRequest(`${phone.origin}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });
    expect(api.status).toBe(503);
    expect(api.headers['content-type']).toMatch(/^application\/json/);
    expect(api.headers['retry-after']).toBe('60');
    expect(api.headers['access-control-allow-origin']).toBe('*');
    expect(JSON.parse(api.text)).toEqual({ error: expect.stringMatching(/offline/) });
    await expect(masto.v1.timelines.home.list()).rejects.toMatchObject({ statusCode: 503, message: expect.stringMatching(/offline/) });
    for (const path of ['/oauth/authorize?response_type=code&client_id=x', '/api/v1/streaming/user']) {
      expect((await phoneRequest(`${phone.origin}${path}`)).status, path).toBe(503);
    }
    const refused = await upgrade(ws, { protocols: [token] });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body)).toEqual({ error: expect.stringMatching(/offline/) });
  });

  it('answers again once the instance is back, from the moment the relay holds its tunnel', async () => {
    const tenant = await relay.relay.store.tenantByHost(new URL(phone.origin).host);
    expect(tenant).not.toBeNull();
    expect(relay.relay.tunnels.session(tenant?.id ?? '')).toBeUndefined();
    const back = phone.restart();
    // The first request the relay can carry (it holds the tunnel) is answered, not lost while the
    // instance is still logging in.
    while (!relay.relay.tunnels.session(tenant?.id ?? '')) await new Promise((r) => setTimeout(r, 1));
    const asked = Date.now();
    const first = await phoneRequest(`${phone.origin}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token}` } });
    expect(first.status, first.text).toBe(200);
    expect(Date.now() - asked).toBeLessThan(5000);
    await back;
    expect((await masto.v1.accounts.verifyCredentials()).username).toBe('alice');
  });
});

describe('an instance that does not let the relay carry its client API', () => {
  let relay: TestRelay;
  let home: ChildInstance;
  let token = '';
  beforeAll(async () => {
    relay = await startRelay();
    home = await spawnRelayedInstance(relay, '127.0.0.5', { clients: false, users: [BOB] });
    token = await home.token('bob');
  }, 60_000);
  afterAll(async () => {
    await home?.close();
    await relay?.close();
  });

  it('shows nothing of its client side at the public host: API, OAuth, pages and streaming are 404', async () => {
    const auth = { authorization: `Bearer ${token}` };
    for (const [method, path] of [
      ['GET', '/api/v1/instance'],
      ['GET', '/api/v1/accounts/verify_credentials'],
      ['POST', '/api/v1/statuses'],
      ['GET', '/oauth/authorize?response_type=code&client_id=x'],
      ['POST', '/oauth/token'],
      ['GET', '/auth/sign_in'],
      ['GET', '/api/v1/streaming/user'],
      ['GET', '/'],
    ] as const) {
      const res = await phoneRequest(`${home.origin}${path}`, { method, headers: auth, body: method === 'POST' ? '' : undefined });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(JSON.parse(res.text), path).toEqual({ error: 'Record not found' });
    }
    const ws = await upgrade(`${home.origin.replace('http:', 'ws:')}/api/v1/streaming?stream=user`, { protocols: [token] });
    expect(ws.status).toBe(404);
    // The token is good: the instance itself answers on its own listener.
    expect((await phoneRequest(`${home.url}/api/v1/accounts/verify_credentials`, { headers: auth })).status).toBe(200);
  });

  it('still serves its public documents there', async () => {
    const actor = await phoneRequest(`${home.origin}/users/bob`, { headers: { accept: 'application/activity+json' } });
    expect(actor.status).toBe(200);
    expect(JSON.parse(actor.text)).toMatchObject({ id: `${home.origin}/users/bob` });
    const host = new URL(home.origin).host;
    const finger = await phoneRequest(`${home.origin}/.well-known/webfinger?resource=acct:bob@${host}`);
    expect(finger.status).toBe(200);
    expect(JSON.parse(finger.text)).toMatchObject({ subject: `acct:bob@${host}` });
  });

  it('is still 404 on client paths while offline (never "offline": there is nothing to reach)', async () => {
    await home.stop();
    expect((await phoneRequest(`${home.origin}/api/v1/instance`)).status).toBe(404);
    expect((await upgrade(`${home.origin.replace('http:', 'ws:')}/api/v1/streaming`)).status).toBe(404);
  });
});

describe('per-address rate limits on client traffic at the relay', () => {
  const LIMIT = 5;
  let relay: TestRelay;
  let zed: ChildInstance;
  beforeAll(async () => {
    relay = await startRelayWith({ clientRateLimit: LIMIT });
    zed = await spawnRelayedInstance(relay, '127.0.0.5', { clients: true, users: [ZED] });
  }, 60_000);
  afterAll(async () => {
    await zed?.close();
    await relay?.close();
  });

  /** Makes client API requests from one address (optionally naming another in X-Forwarded-For). */
  async function statuses(count: number, localAddress: string, forwardedFor?: string[]): Promise<number[]> {
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      const headers: Record<string, string> = forwardedFor ? { 'x-forwarded-for': forwardedFor[i % forwardedFor.length] as string } : {};
      out.push((await phoneRequest(`${zed.origin}/api/v1/instance`, { localAddress, headers })).status);
    }
    return out;
  }

  it('answers 429 with Mastodon’s X-RateLimit headers beyond the limit, per client address', async () => {
    expect(await statuses(LIMIT, '127.0.0.7')).toEqual(Array(LIMIT).fill(200));
    const before = Date.now();
    const limited = await phoneRequest(`${zed.origin}/api/v1/instance`, { localAddress: '127.0.0.7' });
    expect(limited.status).toBe(429);
    expect(JSON.parse(limited.text)).toEqual({ error: 'Too many requests' });
    expect(limited.headers['x-ratelimit-limit']).toBe(String(LIMIT));
    expect(limited.headers['x-ratelimit-remaining']).toBe('0');
    const reset = Date.parse(String(limited.headers['x-ratelimit-reset']));
    expect(reset).toBeGreaterThan(before);
    expect(reset).toBeLessThanOrEqual(Date.now() + 5 * 60 * 1000);
    // WebSocket upgrades are client requests too.
    expect((await upgrade(`${zed.origin.replace('http:', 'ws:')}/api/v1/streaming`, { localAddress: '127.0.0.7' })).status).toBe(429);
    // Another address has its own allowance.
    expect(await statuses(1, '127.0.0.8')).toEqual([200]);
  });

  it('does not limit public federation paths this way', async () => {
    const host = new URL(zed.origin).host;
    for (let i = 0; i < LIMIT + 2; i++) {
      expect((await phoneRequest(`${zed.origin}/users/zed`, { localAddress: '127.0.0.7', headers: { accept: 'application/activity+json' } })).status).toBe(200);
      expect((await phoneRequest(`${zed.origin}/.well-known/webfinger?resource=acct:zed@${host}`, { localAddress: '127.0.0.7' })).status).toBe(200);
    }
    // The client API is still limited for that address.
    expect(await statuses(1, '127.0.0.7')).toEqual([429]);
  });

  it('counts the address the local proxy names in X-Forwarded-For, and only the local proxy', async () => {
    // The TLS proxy on the relay's machine (127.0.0.1) names each client.
    expect(await statuses(LIMIT + 1, '127.0.0.1', ['198.51.100.7'])).toEqual([...Array(LIMIT).fill(200), 429]);
    expect(await statuses(1, '127.0.0.1', ['198.51.100.8'])).toEqual([200]);
    expect(await statuses(1, '127.0.0.1', ['203.0.113.1, 198.51.100.7'])).toEqual([429]);
    // Any other peer is counted as itself, whatever it claims.
    expect(await statuses(LIMIT + 1, '127.0.0.9', ['198.51.100.20', '198.51.100.21', '198.51.100.22'])).toEqual([...Array(LIMIT).fill(200), 429]);
    // An IPv6 client is counted by its /64.
    const sameHome = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:aaaa::3'];
    expect(await statuses(LIMIT + 1, '127.0.0.1', sameHome)).toEqual([...Array(LIMIT).fill(200), 429]);
    expect(await statuses(1, '127.0.0.1', ['2001:db8:1:3::1'])).toEqual([200]);
  });
});

describe('the relay’s client rate limit setting', () => {
  it('defaults to twice Mastodon’s per-IP limit and refuses nonsense', () => {
    expect(resolveRelayConfig({ dataDir: '/tmp/x' }).clientRateLimit).toBe(DEFAULT_CLIENT_RATE_LIMIT);
    expect(DEFAULT_CLIENT_RATE_LIMIT).toBe(600);
    expect(resolveRelayConfig({ dataDir: '/tmp/x', clientRateLimit: '50' }).clientRateLimit).toBe(50);
    expect(() => resolveRelayConfig({ dataDir: '/tmp/x', clientRateLimit: '0' })).toThrow(/client-rate-limit/);
    expect(() => resolveRelayConfig({ dataDir: '/tmp/x', clientRateLimit: 'many' })).toThrow(/client-rate-limit/);
  });

  it('buckets IPv6 addresses by /64 and IPv4-mapped addresses as IPv4', () => {
    expect(bucketKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(bucketKey('192.0.2.1')).toBe('192.0.2.1');
    expect(bucketKey('2001:db8:0:1::5')).toBe('2001:db8:0:1::/64');
    expect(bucketKey('2001:0db8:0000:0001:ffff:1:2:3')).toBe('2001:db8:0:1::/64');
    expect(bucketKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(bucketKey('::1')).toBe('0:0:0:0::/64');
  });
});
