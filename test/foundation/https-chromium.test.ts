import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { makeLeaf } from '../../api/tls/authority.js';
import { tlsFiles } from '../../api/tls/store.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

/**
 * Debian's Chromium as a web client (Phanpy, Elk) uses the HTTPS listener: a page served from
 * another local https origin reads the instance, posts and gets the post back over wss. Chromium
 * trusts the made authority through `--ignore-certificate-errors-spki-list` with its key's hash,
 * as it would once the authority is installed. Skipped where Debian's chromium is not installed.
 */
const CHROMIUM = '/usr/bin/chromium';

/** A headless Chromium driven over the DevTools protocol (a WebSocket, no client library needed). */
class Chromium {
  private nextId = 1;
  private readonly pending = new Map<number, (result: { result?: { value?: unknown } }) => void>();

  private constructor(
    private readonly child: ChildProcess,
    private readonly ws: WebSocket,
  ) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id?: number; result?: { result?: { value?: unknown } } };
      if (message.id !== undefined) this.pending.get(message.id)?.(message.result ?? {});
    });
  }

  /** Starts Chromium with its own profile, trusting the authority whose key hash is `spki` (none: nothing extra). */
  static async launch(profile: string, spki: string | null): Promise<Chromium> {
    mkdirSync(profile, { recursive: true });
    const args = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--remote-debugging-port=0', `--user-data-dir=${profile}`];
    if (spki) args.push(`--ignore-certificate-errors-spki-list=${spki}`);
    const child = spawn(CHROMIUM, [...args, 'about:blank'], { stdio: 'ignore', detached: true });
    const portFile = join(profile, 'DevToolsActivePort');
    const deadline = Date.now() + 30_000;
    while (!existsSync(portFile) || readFileSync(portFile, 'utf8').split('\n').length < 2) {
      if (Date.now() > deadline) throw new Error('Chromium did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const port = readFileSync(portFile, 'utf8').split('\n')[0];
    const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as { type: string; webSocketDebuggerUrl: string }[];
    const target = targets.find((t) => t.type === 'page');
    if (!target) throw new Error('Chromium has no page');
    const ws = new WebSocket(target.webSocketDebuggerUrl);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new Chromium(child, ws);
  }

  private send(method: string, params: Record<string, unknown>): Promise<{ result?: { value?: unknown } }> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Opens a URL in the page. */
  async open(url: string): Promise<void> {
    await this.send('Page.navigate', { url });
  }

  /** Evaluates `expression` in the page until it gives a non-empty string, for `ms` at most. */
  async waitFor(expression: string, ms = 30_000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = (await this.send('Runtime.evaluate', { expression, returnByValue: true })).result?.value;
      if (typeof value === 'string' && value !== '') return value;
      if (Date.now() > deadline) throw new Error(`the page never answered ${expression}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  close(): void {
    this.ws.terminate();
    // The browser and its helpers are one process group, the one this test started.
    if (this.child.pid) process.kill(-this.child.pid, 'SIGKILL');
  }
}

/** The web client's page: what Phanpy and Elk do first, in a few lines. */
function clientPage(instance: string, token: string): string {
  return `<!doctype html><html><body><pre id="out">pending</pre><script>
(async () => {
  const out = (text) => { document.getElementById('out').textContent = text; };
  try {
    const auth = { authorization: 'Bearer ${token}' };
    out('fetching');
    const info = await (await fetch('${instance}/api/v2/instance')).json();
    out('opening');
    const ws = new WebSocket(info.configuration.urls.streaming + '/api/v1/streaming?stream=user&access_token=${token}');
    await new Promise((resolve, reject) => { ws.onopen = resolve; ws.onerror = () => reject(new Error('wss failed')); });
    const streamed = new Promise((resolve) => {
      ws.onmessage = (m) => { const e = JSON.parse(m.data); if (e.event === 'update') resolve(JSON.parse(e.payload)); };
    });
    out('posting');
    const res = await fetch('${instance}/api/v1/statuses', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ status: 'from Chromium' }) });
    const posted = await res.json();
    out('waiting');
    const event = await streamed;
    out('RESULT ' + JSON.stringify({ domain: info.domain, streaming: info.configuration.urls.streaming, posted: posted.url, streamed: event.url }));
  } catch (e) {
    out('ERROR ' + e);
  }
})();
</script></body></html>`;
}

describe.skipIf(!existsSync(CHROMIUM))('Chromium on the HTTPS listener', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let page: Server;
  let pageUrl: string;
  let spki: string;
  let profiles: string;

  beforeAll(async () => {
    inst = await startInstance({ httpsPort: 0 });
    alice = await inst.createUser('alice');
    const https = inst.app.https;
    if (!https) throw new Error('no HTTPS listener');
    spki = https.caSpki;
    profiles = mkdtempSync(join(tmpdir(), 'hearth-chromium-'));
    // The client's own site, a local https origin with a certificate from the same authority.
    const files = tlsFiles(inst.dataDir);
    const authority = { cert: readFileSync(files.caCert, 'utf8'), key: readFileSync(files.caKey, 'utf8') };
    const site = await makeLeaf(authority, { dns: ['client.localhost'], ips: [] });
    const html = clientPage(https.url, alice.token);
    // The authority goes in the chain: Chromium's flag matches keys of the chain presented.
    page = createServer({ key: site.key, cert: `${site.cert}${authority.cert}` }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
    });
    await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve));
    pageUrl = `https://client.localhost:${(page.address() as AddressInfo).port}/`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()));
    await inst?.close();
    if (profiles) rmSync(profiles, { recursive: true, force: true });
  });

  /** Runs a Chromium for one test, closing it whatever happens. */
  async function withChromium<T>(name: string, trust: boolean, use: (browser: Chromium) => Promise<T>): Promise<T> {
    const browser = await Chromium.launch(join(profiles, name), trust ? spki : null);
    try {
      return await use(browser);
    } finally {
      browser.close();
    }
  }

  it('loads the instance at https://hearth.localhost:PORT once the authority is trusted, and not before', async () => {
    const url = `${inst.app.https?.url}/api/v2/instance`;
    const text = await withChromium('trusted', true, async (browser) => {
      await browser.open(url);
      return browser.waitFor("document.contentType === 'application/json' ? document.body.innerText : ''");
    });
    const info = JSON.parse(text) as { domain: string; configuration: { urls: { streaming: string } } };
    expect(info.domain).toBe(`hearth.localhost:${inst.app.https?.port}`);
    expect(info.configuration.urls.streaming).toBe(`wss://hearth.localhost:${inst.app.https?.port}`);
    // Without the authority Chromium stops at its certificate error page.
    const refused = await withChromium('untrusted', false, async (browser) => {
      await browser.open(url);
      return browser.waitFor("document.readyState === 'complete' && location.href !== 'about:blank' ? document.contentType + ' ' + document.body.innerText.slice(0, 200) : ''");
    });
    expect(refused).not.toContain('"domain"');
    expect(refused.startsWith('text/html')).toBe(true);
  }, 120_000);

  it('serves a web client on another local origin: instance, posting and the stream over wss', async () => {
    const result = await withChromium('client', true, async (browser) => {
      await browser.open(pageUrl);
      return browser.waitFor("(document.getElementById('out')?.textContent ?? '').match(/^(RESULT|ERROR)/) ? document.getElementById('out').textContent : ''");
    });
    expect(result).toMatch(/^RESULT /);
    const base = inst.app.https?.url ?? '';
    const { domain, streaming, posted, streamed } = JSON.parse(result.slice('RESULT '.length)) as Record<string, string>;
    expect(domain).toBe(new URL(base).host);
    expect(streaming).toBe(base.replace(/^https/, 'wss'));
    expect(posted).toMatch(new RegExp(`^${base.replace(/[.]/g, '\\.')}/@alice/\\d+$`));
    expect(streamed).toBe(posted);
  }, 120_000);
});
