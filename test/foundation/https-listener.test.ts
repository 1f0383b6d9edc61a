import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type PeerCertificate } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makeLeaf, spkiHash } from '../../api/tls/authority.js';
import { certificateNames } from '../../api/tls/listener.js';
import { ensureCertificates, tlsFiles } from '../../api/tls/store.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { foreignUrls, multipartBody, rawRequest, toLoopback, type RawResponse } from '../instance/published-urls.js';
import { picture } from '../media/helpers.js';
import { StreamSocket } from '../streaming/helpers.js';

const DAY_MS = 24 * 60 * 60 * 1000;

/** The TLS handshake with the listener as a client that trusts `ca` (or nothing) sees it. */
function handshake(port: number, servername: string, ca?: string): Promise<{ authorized: boolean; error: string | null; cert: PeerCertificate }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, servername, ca, rejectUnauthorized: false }, () => {
      const result = { authorized: socket.authorized, error: socket.authorizationError ? String(socket.authorizationError) : null, cert: socket.getPeerCertificate() };
      socket.end();
      resolve(result);
    });
    socket.on('error', reject);
  });
}

describe('the HTTPS listener for local clients', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let port: number;
  let base: string;
  let ca: string;

  const get = (path: string, token?: string): Promise<RawResponse> =>
    rawRequest(`${base}${path}`, { ca, headers: { host: new URL(base).host, ...(token ? { authorization: `Bearer ${token}` } : {}) } });

  beforeAll(async () => {
    inst = await startInstance({ httpsPort: 0 });
    alice = await inst.createUser('alice');
    const https = inst.app.https;
    if (!https) throw new Error('no HTTPS listener');
    port = https.port;
    base = https.url;
    ca = readFileSync(https.caFile, 'utf8');
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('listens at https://hearth.localhost:PORT with a certificate that verifies against the made authority', async () => {
    expect(base).toBe(`https://hearth.localhost:${port}`);
    expect(inst.app.https?.caFile).toBe(join(inst.dataDir, 'tls', 'ca.pem'));
    const trusted = await handshake(port, 'hearth.localhost', ca);
    expect(trusted.error).toBeNull();
    expect(trusted.authorized).toBe(true);
    expect(trusted.cert.subjectaltname).toContain('DNS:hearth.localhost');
    // Nothing else vouches for it: a client that has not trusted the authority refuses it.
    const untrusted = await handshake(port, 'hearth.localhost');
    expect(untrusted.authorized).toBe(false);
    // The key is private to the data directory.
    expect(readFileSync(tlsFiles(inst.dataDir).caKey, 'utf8')).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(inst.app.https?.caSpki).toBe(spkiHash(ca));
  });

  it('serves the API, and every URL it publishes is https://hearth.localhost:PORT', async () => {
    const texts: string[] = [];
    const keep = (res: RawResponse) => {
      texts.push(`${res.text}\n${String(res.headers.link ?? '')}`);
      return res;
    };
    const v2 = keep(await get('/api/v2/instance'));
    expect(v2.status).toBe(200);
    expect(v2.json.domain).toBe(`hearth.localhost:${port}`);
    expect(v2.json.configuration.urls.streaming).toBe(`wss://hearth.localhost:${port}`);
    expect(keep(await get('/api/v1/instance')).json.urls.streaming_api).toBe(`wss://hearth.localhost:${port}`);
    expect(keep(await get('/.well-known/oauth-authorization-server')).json.token_endpoint).toBe(`${base}/oauth/token`);
    keep(await get('/.well-known/host-meta'));
    keep(await get('/.well-known/nodeinfo'));

    const upload = new FormData();
    upload.append('file', new Blob([new Uint8Array(await picture(40, 30, 'png'))], { type: 'image/png' }), 'pic.png');
    const multipart = await multipartBody(upload);
    const media = keep(
      await rawRequest(`${base}/api/v2/media`, {
        method: 'POST',
        ca,
        body: multipart.body,
        headers: { host: new URL(base).host, authorization: `Bearer ${alice.token}`, 'content-type': multipart.type },
      }),
    );
    expect(media.json.url.startsWith(`${base}/system/`)).toBe(true);
    const status = keep(
      await rawRequest(`${base}/api/v1/statuses`, {
        method: 'POST',
        ca,
        body: JSON.stringify({ status: 'over TLS #hearth', media_ids: [media.json.id] }),
        headers: { host: new URL(base).host, authorization: `Bearer ${alice.token}`, 'content-type': 'application/json' },
      }),
    );
    expect(status.json.url).toBe(`${base}/@alice/${status.json.id}`);
    expect(keep(await get('/api/v1/accounts/verify_credentials', alice.token)).json.avatar.startsWith(`${base}/`)).toBe(true);
    keep(await get('/api/v1/timelines/home?limit=1', alice.token));

    for (const text of texts) {
      expect(foreignUrls(text, base)).toEqual([]);
      expect(text).not.toContain('127.0.0.1');
    }
  });

  it('streams over wss, with the listener’s URLs in events posted elsewhere', async () => {
    const ws = new WebSocket(`wss://hearth.localhost:${port}/api/v1/streaming?stream=user`, { ca, lookup: toLoopback, headers: { authorization: `Bearer ${alice.token}` } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const socket = new StreamSocket(ws);
    try {
      // Posted over the plain HTTP port, seen over TLS.
      const posted = await alice.client.post('/api/v1/statuses', { status: 'live over wss' });
      const event = await socket.next((e) => e.event === 'update' && e.payload.id === posted.body.id);
      expect(event.payload.url).toBe(`${base}/@alice/${posted.body.id}`);
      expect(foreignUrls(event.raw ?? '', base)).toEqual([]);
    } finally {
      socket.close();
    }
  });

  it('accepts the listener’s names as Host, on its port and the plain one', async () => {
    const named = await startInstance({ httpsPort: 0, httpsName: 'hearth.internal,hearth.localhost' });
    const plain = await startInstance({ httpsName: 'hearth.internal' });
    try {
      const https = named.app.https;
      expect(https?.url).toBe(`https://hearth.internal:${https?.port}`);
      const res = await rawRequest(`${https?.url}/api/v2/instance`, { ca: readFileSync(https?.caFile ?? '', 'utf8'), headers: { host: `hearth.internal:${https?.port}` } });
      expect(res.status).toBe(200);
      expect(res.json.domain).toBe(`hearth.internal:${https?.port}`);
      expect((await rawRequest(`${named.url}/api/v2/instance`, { headers: { host: 'hearth.internal' } })).status).toBe(200);
      // Without the listener the name is nobody's.
      expect(plain.app.https).toBeNull();
      expect((await rawRequest(`${plain.url}/api/v2/instance`, { headers: { host: 'hearth.internal' } })).status).toBe(403);
    } finally {
      await named.close();
      await plain.close();
    }
  });
});

describe('the HTTPS listener’s certificates', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-tls-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('survive a restart: the same authority and the same certificate', async () => {
    const dataDir = join(dir, 'restart');
    const first = await startInstance({ dataDir, httpsPort: 0 });
    const files = tlsFiles(dataDir);
    const authority = readFileSync(files.caCert, 'utf8');
    const leaf = readFileSync(files.cert, 'utf8');
    expect(first.app.https?.material.madeAuthority).toBe(true);
    await first.close();
    const second = await startInstance({ dataDir, httpsPort: 0 });
    try {
      expect(second.app.https?.material.madeAuthority).toBe(false);
      expect(second.app.https?.material.madeLeaf).toBe(false);
      expect(readFileSync(files.caCert, 'utf8')).toBe(authority);
      expect(readFileSync(files.cert, 'utf8')).toBe(leaf);
      const served = await handshake(second.app.https?.port ?? 0, 'hearth.localhost', authority);
      expect(served.authorized).toBe(true);
      expect(served.cert.fingerprint256).toBe(new X509Certificate(leaf).fingerprint256);
    } finally {
      await second.close();
    }
  });

  it('renew a certificate near its expiry, at start and while serving, and keep the authority', async () => {
    const dataDir = join(dir, 'renew');
    const names = certificateNames({ bind: '127.0.0.1', httpsNames: ['hearth.localhost'] });
    // Made 380 days ago: the certificate (397 days) has 17 days left, the authority ten years.
    const old = await ensureCertificates(dataDir, names, new Date(Date.now() - 380 * DAY_MS));
    const oldLeaf = new X509Certificate(old.chain);
    const inst = await startInstance({ dataDir, httpsPort: 0 });
    try {
      const https = inst.app.https;
      if (!https) throw new Error('no HTTPS listener');
      expect(https.material.madeAuthority).toBe(false);
      expect(https.material.madeLeaf).toBe(true);
      expect(readFileSync(tlsFiles(dataDir).caCert, 'utf8')).toBe(old.ca);
      let served = await handshake(https.port, 'hearth.localhost', old.ca);
      expect(served.authorized).toBe(true);
      expect(served.cert.serialNumber).not.toBe(oldLeaf.serialNumber);
      expect(new Date(served.cert.valid_to).getTime()).toBeGreaterThan(Date.now() + 390 * DAY_MS);

      // Near expiry again while serving (a certificate made long ago put in place): the check renews it.
      const stale = await makeLeaf({ cert: old.ca, key: readFileSync(tlsFiles(dataDir).caKey, 'utf8') }, names, new Date(Date.now() - 390 * DAY_MS));
      writeFileSync(tlsFiles(dataDir).cert, stale.cert);
      writeFileSync(tlsFiles(dataDir).key, stale.key);
      const renewed = await https.renew();
      expect(renewed.madeLeaf).toBe(true);
      expect(renewed.madeAuthority).toBe(false);
      served = await handshake(https.port, 'hearth.localhost', old.ca);
      expect(served.authorized).toBe(true);
      expect(served.cert.serialNumber).not.toBe(new X509Certificate(stale.cert).serialNumber);
      expect(served.cert.fingerprint256).toBe(new X509Certificate(renewed.chain).fingerprint256);
      // Nothing to do the next time.
      expect((await https.renew()).madeLeaf).toBe(false);
    } finally {
      await inst.close();
    }
  });
});
