import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { addCustomEmoji } from '../../api/core/emojis/manage.js';
import { setupToken } from '../../api/core/setup.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { picture } from '../media/helpers.js';
import { StreamSocket } from '../streaming/helpers.js';
import { foreignUrls, multipartBody, rawRequest, type RawResponse } from './published-urls.js';

// What a TLS proxy on loopback (Caddy, nginx) in front of a local-only instance sends.
const PROXIED = { host: 'hearth.example', 'x-forwarded-proto': 'https' };
const BASE = 'https://hearth.example';

describe('a local-only instance behind a TLS proxy on loopback', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let scratch: string;
  const seen: { what: string; text: string }[] = [];

  /** A request as the proxy forwards it; every answer is kept for the scan of published URLs. */
  async function proxied(method: string, path: string, options: { token?: string; json?: unknown; form?: FormData; headers?: Record<string, string> } = {}): Promise<RawResponse> {
    const headers: Record<string, string> = { ...PROXIED, ...(options.headers ?? {}) };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: Buffer | string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      const multipart = await multipartBody(options.form);
      headers['content-type'] = multipart.type;
      body = multipart.body;
    }
    const res = await rawRequest(`${inst.url}${path}`, { method, headers, body });
    seen.push({ what: `${method} ${path}`, text: `${res.text}\n${String(res.headers.link ?? '')}\n${String(res.headers.location ?? '')}` });
    return res;
  }

  beforeAll(async () => {
    // The proxy's name is allowed as any extra Host name is (--allowed-hosts).
    inst = await startInstance({ allowedHosts: 'hearth.example' });
    alice = await inst.createUser('alice');
    scratch = mkdtempSync(join(tmpdir(), 'hearth-base-'));
    const emoji = join(scratch, 'blob.png');
    writeFileSync(emoji, await picture(32, 32, 'png'));
    await addCustomEmoji(inst.deps, { shortcode: 'blob', file: emoji });
  });
  afterAll(async () => {
    await inst?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('publishes only https://hearth.example URLs: instance, OAuth metadata, accounts, media, statuses, emojis, links, pages', async () => {
    const v1 = await proxied('GET', '/api/v1/instance');
    expect(v1.json.uri).toBe('hearth.example');
    expect(v1.json.urls.streaming_api).toBe('wss://hearth.example');
    const v2 = await proxied('GET', '/api/v2/instance');
    expect(v2.json.domain).toBe('hearth.example');
    expect(v2.json.configuration.urls.streaming).toBe('wss://hearth.example');
    expect(v2.json.thumbnail.url).toMatch(/^https:\/\/hearth\.example\//);

    const meta = await proxied('GET', '/.well-known/oauth-authorization-server');
    expect(meta.json).toMatchObject({
      issuer: `${BASE}/`,
      authorization_endpoint: `${BASE}/oauth/authorize`,
      token_endpoint: `${BASE}/oauth/token`,
      app_registration_endpoint: `${BASE}/api/v1/apps`,
      revocation_endpoint: `${BASE}/oauth/revoke`,
      userinfo_endpoint: `${BASE}/oauth/userinfo`,
    });

    // Bodies that go through the parsers (multipart, JSON) keep the request's base.
    const avatar = new FormData();
    avatar.append('avatar', new Blob([new Uint8Array(await picture(64, 64, 'png'))], { type: 'image/png' }), 'me.png');
    const profile = await proxied('PATCH', '/api/v1/accounts/update_credentials', { token: alice.token, form: avatar });
    expect(profile.status).toBe(200);
    expect(profile.json.url).toBe(`${BASE}/@alice`);
    expect(profile.json.avatar).toMatch(/^https:\/\/hearth\.example\/system\//);

    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array(await picture(40, 30, 'png'))], { type: 'image/png' }), 'pic.png');
    const media = await proxied('POST', '/api/v2/media', { token: alice.token, form: upload });
    expect(media.status).toBe(200);
    expect(media.json.url).toMatch(/^https:\/\/hearth\.example\/system\//);
    expect(media.json.preview_url).toMatch(/^https:\/\/hearth\.example\/system\//);

    const first = await proxied('POST', '/api/v1/statuses', { token: alice.token, json: { status: 'first :blob: #hearth @alice', media_ids: [media.json.id] } });
    expect(first.status).toBe(200);
    expect(first.json.url).toBe(`${BASE}/@alice/${first.json.id}`);
    expect(first.json.uri).toBe(`${BASE}/users/alice/statuses/${first.json.id}`);
    expect(first.json.media_attachments[0].url).toMatch(/^https:\/\/hearth\.example\/system\//);
    expect(first.json.emojis[0].url).toMatch(/^https:\/\/hearth\.example\/system\//);
    expect(first.json.tags[0].url).toBe(`${BASE}/tags/hearth`);
    await proxied('POST', '/api/v1/statuses', { token: alice.token, json: { status: 'second' } });

    const home = await proxied('GET', '/api/v1/timelines/home?limit=1', { token: alice.token });
    expect(home.json).toHaveLength(1);
    expect(String(home.headers.link)).toMatch(/^<https:\/\/hearth\.example\/api\/v1\/timelines\/home\?/);
    expect((await proxied('GET', `/api/v1/statuses/${first.json.id}`, { token: alice.token })).json.account.avatar).toMatch(/^https:\/\/hearth\.example\//);
    expect((await proxied('GET', '/api/v1/custom_emojis')).json[0].static_url).toMatch(/^https:\/\/hearth\.example\/system\//);
    expect((await proxied('GET', '/api/v1/accounts/verify_credentials', { token: alice.token })).json.header).toMatch(/^https:\/\/hearth\.example\//);
    expect((await proxied('GET', '/oauth/userinfo', { token: inst.tokenFor(alice, 'profile') })).json.profile).toBe(`${BASE}/@alice`);

    // The first-run page names the address the owner is about to give their apps.
    const setup = await proxied('GET', `/setup?token=${setupToken(inst.deps)}`);
    expect(setup.status).toBe(200);
    expect(setup.text).toContain(`<strong>${BASE}</strong>`);

    for (const { what, text } of seen) {
      expect(foreignUrls(text, BASE), what).toEqual([]);
      expect(text, what).not.toContain('127.0.0.1');
    }
  });

  it('answers host-meta and NodeInfo at the request’s address', async () => {
    const hostMeta = await proxied('GET', '/.well-known/host-meta');
    expect(hostMeta.status).toBe(200);
    expect(hostMeta.headers['content-type']).toMatch(/^application\/xrd\+xml/);
    expect(hostMeta.text).toContain(`template="${BASE}/.well-known/webfinger?resource={uri}"`);
    const links = await proxied('GET', '/.well-known/nodeinfo');
    expect(links.json.links.map((l: { href: string }) => l.href)).toEqual([`${BASE}/nodeinfo/2.0`, `${BASE}/nodeinfo/2.1`]);
    for (const version of ['2.0', '2.1']) expect((await proxied('GET', `/nodeinfo/${version}`)).json.version).toBe(version);
  });

  it('streams events with the URLs of the address each stream was opened at', async () => {
    const open = async (headers: Record<string, string>) => {
      const ws = new WebSocket(`${inst.url.replace(/^http/, 'ws')}/api/v1/streaming?stream=user`, { headers: { ...headers, authorization: `Bearer ${alice.token}` } });
      await new Promise<void>((resolve, reject) => {
        ws.once('open', () => resolve());
        ws.once('error', reject);
      });
      return new StreamSocket(ws);
    };
    const viaProxy = await open(PROXIED);
    const direct = await open({});
    const sse = await rawSse(inst, alice.token);
    try {
      // Posted at the plain address: the event is rendered once and moved to each stream's base.
      const posted = await alice.client.post('/api/v1/statuses', { status: 'live' });
      const event = await viaProxy.next((e) => e.event === 'update' && e.payload.id === posted.body.id);
      expect(event.payload.url).toBe(`${BASE}/@alice/${posted.body.id}`);
      expect(event.payload.account.avatar).toMatch(/^https:\/\/hearth\.example\//);
      expect(foreignUrls(event.raw ?? '', BASE)).toEqual([]);
      const plain = await direct.next((e) => e.event === 'update' && e.payload.id === posted.body.id);
      expect(plain.payload.url).toBe(`${inst.url}/@alice/${posted.body.id}`);
      const data = await sse.until((text) => text.includes(posted.body.id));
      expect(foreignUrls(data, BASE)).toEqual([]);
      expect(data).toContain(`${BASE}/@alice/${posted.body.id}`);
      // Posted through the proxy: the plain stream still gets its own address (events are not
      // rendered in the poster's request).
      const proxiedPost = await proxied('POST', '/api/v1/statuses', { token: alice.token, json: { status: 'through the proxy' } });
      const mirrored = await direct.next((e) => e.event === 'update' && e.payload.id === proxiedPost.json.id);
      expect(mirrored.payload.url).toBe(`${inst.url}/@alice/${proxiedPost.json.id}`);
      expect(foreignUrls(mirrored.raw ?? '', inst.url)).toEqual([]);
      expect((await viaProxy.next((e) => e.event === 'update' && e.payload.id === proxiedPost.json.id)).payload.url).toBe(`${BASE}/@alice/${proxiedPost.json.id}`);
    } finally {
      viaProxy.close();
      direct.close();
      sse.close();
    }
  });

  it('refuses a forwarded host that is not allowed, as it refuses such a Host', async () => {
    const res = await rawRequest(`${inst.url}/api/v2/instance`, { headers: { ...PROXIED, 'x-forwarded-host': 'evil.example' } });
    expect(res.status).toBe(403);
    expect(res.json).toEqual({ error: 'This host name is not allowed' });
    const allowed = await rawRequest(`${inst.url}/api/v2/instance`, { headers: { host: `127.0.0.1:${new URL(inst.url).port}`, 'x-forwarded-host': 'hearth.example', 'x-forwarded-proto': 'https' } });
    expect(allowed.json.domain).toBe('hearth.example');
  });

  it('believes forwarding headers only from a peer on loopback', async () => {
    // A peer on a Unix socket is not on loopback: the instance's own HTTP server takes the connection.
    const socketPath = join(scratch, 'peer.sock');
    const bridge: Server = createServer((socket) => inst.app.server?.emit('connection', socket));
    await new Promise<void>((resolve) => bridge.listen(socketPath, resolve));
    try {
      const res = await rawRequest('http://hearth.example/api/v2/instance', { socketPath, headers: { ...PROXIED, 'x-forwarded-host': 'other.example' } });
      expect(res.status).toBe(200);
      expect(res.json.domain).toBe('hearth.example');
      expect(res.json.configuration.urls.streaming).toBe('ws://hearth.example');
      const meta = await rawRequest('http://hearth.example/.well-known/oauth-authorization-server', { socketPath, headers: PROXIED });
      expect(meta.json.issuer).toBe('http://hearth.example/');
    } finally {
      await new Promise<void>((resolve) => bridge.close(() => resolve()));
    }
  });
});

describe('an instance with a public origin', () => {
  let inst: TestInstance;
  let alice: TestUser;
  beforeAll(async () => {
    inst = await startInstance({ origin: 'https://kim.example', allowedHosts: 'hearth.example,other.example' });
    alice = await inst.createUser('alice');
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('publishes its origin whatever the request says', async () => {
    const headers = { host: 'hearth.example', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'other.example', authorization: `Bearer ${alice.token}` };
    const v2 = await rawRequest(`${inst.url}/api/v2/instance`, { headers });
    expect(v2.json.domain).toBe('kim.example');
    expect(v2.json.configuration.urls.streaming).toBe('wss://kim.example');
    expect((await rawRequest(`${inst.url}/.well-known/oauth-authorization-server`, { headers })).json.token_endpoint).toBe('https://kim.example/oauth/token');
    expect((await rawRequest(`${inst.url}/api/v1/accounts/verify_credentials`, { headers })).json.url).toBe('https://kim.example/@alice');
    expect((await rawRequest(`${inst.url}/.well-known/host-meta`, { headers })).text).toContain('template="https://kim.example/.well-known/webfinger?resource={uri}"');
    expect((await rawRequest(`${inst.url}/.well-known/nodeinfo`, { headers })).json.links[0].href).toBe('https://kim.example/nodeinfo/2.0');
    // A forwarded host is not looked at (the origin is the identity), so it need not be allowed.
    expect((await rawRequest(`${inst.url}/api/v2/instance`, { headers: { ...headers, 'x-forwarded-host': 'evil.example' } })).status).toBe(200);
  });
});

/** A server-sent stream of the `user` channel opened through the proxy, collecting its text. */
async function rawSse(inst: TestInstance, token: string): Promise<{ until(check: (text: string) => boolean): Promise<string>; close(): void }> {
  const { request } = await import('node:http');
  let text = '';
  const waiters: (() => void)[] = [];
  const req = request(`${inst.url}/api/v1/streaming/user`, { headers: { ...PROXIED, authorization: `Bearer ${token}` }, agent: false });
  await new Promise<void>((resolve, reject) => {
    req.on('response', (res) => {
      res.on('data', (c: Buffer) => {
        text += c.toString('utf8');
        waiters.splice(0).forEach((w) => w());
      });
      res.on('error', () => {});
      resolve();
    });
    req.on('error', reject);
    req.end();
  });
  return {
    async until(check) {
      const deadline = Date.now() + 3000;
      while (!check(text)) {
        if (Date.now() > deadline) throw new Error(`timed out; the stream said ${text}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return text;
    },
    close: () => req.destroy(),
  };
}
