import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { eventually, form, picture, storedFiles } from './helpers.js';

/**
 * A multipart body cut short (the HTTP request complete, the form not: no closing boundary, a
 * part cut in its headers or its data) gets one 400 with Mastodon's JSON error and nothing else:
 * no second answer, no stack trace on stderr, no file left in the upload folder. A request whose
 * route needs a token it does not carry is refused before any of its upload is written.
 */

/** One raw HTTP/1.1 exchange (Connection: close): everything the server sent back. */
function rawPost(base: string, path: string, headers: Record<string, string>, body: Buffer): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const head = [`POST ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close', `Content-Length: ${body.length}`];
      for (const [name, value] of Object.entries(headers)) head.push(`${name}: ${value}`);
      socket.write(`${head.join('\r\n')}\r\n\r\n`);
      socket.write(body);
    });
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.setTimeout(15_000, () => socket.destroy(new Error('no answer')));
  });
}

/** Checks that the server sent exactly one response; returns its status and JSON body. */
function onlyAnswer(raw: string): { status: number; body: { error?: string } } {
  const statusLines = raw.match(/^HTTP\/1\.1 \d{3} /gm) ?? [];
  expect(statusLines, raw).toHaveLength(1);
  const [head = '', text = ''] = raw.split('\r\n\r\n');
  expect(head).toMatch(/\r\ncontent-type: application\/json/i);
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]), body: JSON.parse(text) as { error?: string } };
}

/** A multipart upload as a client sends it: its bytes and its content type. */
async function multipartBody(data: Buffer): Promise<{ bytes: Buffer; type: string }> {
  const request = new Request('http://x/', { method: 'POST', body: form({ file: { data, type: 'image/png', name: 'a.png' } }, { description: 'cut short' }) });
  return { bytes: Buffer.from(await request.arrayBuffer()), type: request.headers.get('content-type') ?? '' };
}

/** `count` lengths spread over the body, each leaving the form unterminated. */
function cuts(total: number, count: number): number[] {
  // The closing boundary ("--" + boundary + "--\r\n") is well over 20 bytes: any shorter body lacks it.
  const last = total - 20;
  return Array.from({ length: count }, (_, i) => Math.max(1, Math.round((last * (i + 1)) / (count + 1))));
}

describe('truncated multipart bodies', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let upload: { bytes: Buffer; type: string };
  let errors: MockInstance<typeof console.error>;
  let stderr: MockInstance<typeof process.stderr.write>;

  const uploads = () => join(inst.dataDir, 'uploads');
  const spooledFiles = () => (existsSync(uploads()) ? readdirSync(uploads()) : []);

  beforeAll(async () => {
    inst = await startInstance();
    // Express logs an error handed on after the answer only outside NODE_ENV=test (which vitest
    // sets): the instance is made to behave as in production, where the stack traces were seen.
    inst.app.express.set('env', 'production');
    alice = await inst.createUser('alice');
    upload = await multipartBody(await picture(200, 200, 'png'));
  });
  afterAll(() => inst.close());
  afterEach(() => {
    errors?.mockRestore();
    stderr?.mockRestore();
  });

  /** Watches what the process writes to stderr (console.error and the stream itself). */
  function watchStderr(): () => string[] {
    errors = vi.spyOn(console, 'error');
    stderr = vi.spyOn(process.stderr, 'write');
    return () => [...errors.mock.calls.map((c) => c.map(String).join(' ')), ...stderr.mock.calls.map((c) => String(c[0]))];
  }

  // These two run first: until an upload is accepted, the folder uploads are spooled to does not exist.
  it('anonymous: an upload to a route that needs a token is refused (one 401) before anything is written', async () => {
    const written = watchStderr();
    const before = storedFiles(inst);
    for (const [i, length] of [...cuts(upload.bytes.length, 12), upload.bytes.length].entries()) {
      for (const path of ['/api/v1/media', '/api/v2/media']) {
        const headers: Record<string, string> = { 'Content-Type': upload.type };
        // Half of them with a token that does not exist.
        if (i % 2 === 1) headers.Authorization = 'Bearer not-a-real-token';
        const res = onlyAnswer(await rawPost(inst.url, path, headers, upload.bytes.subarray(0, length)));
        expect(res.status).toBe(401);
        expect(res.body.error).toBe('The access token is invalid');
      }
    }
    // Not even the folder uploads are spooled to was made: nothing of these bodies was written.
    expect(existsSync(uploads())).toBe(false);
    expect(storedFiles(inst)).toEqual(before);
    expect(written()).toEqual([]);
  });

  it('a token without the scope is refused (one 403) before anything is written', async () => {
    const reader = inst.tokenFor(alice, 'read');
    const res = onlyAnswer(await rawPost(inst.url, '/api/v1/media', { 'Content-Type': upload.type, Authorization: `Bearer ${reader}` }, upload.bytes));
    expect(res).toEqual({ status: 403, body: { error: 'This action is outside the authorized scopes' } });
    expect(existsSync(uploads())).toBe(false);
  });

  it('anonymous, on a route that needs no token: one 400 JSON each, nothing on stderr, no file left', async () => {
    const written = watchStderr();
    for (const length of cuts(upload.bytes.length, 16)) {
      const res = onlyAnswer(await rawPost(inst.url, '/api/v1/apps', { 'Content-Type': upload.type }, upload.bytes.subarray(0, length)));
      expect(res, `cut at ${length}`).toEqual({ status: 400, body: { error: 'Error occurred while parsing request parameters' } });
    }
    expect(spooledFiles()).toEqual([]);
    expect(written()).toEqual([]);
  });

  it('authenticated: one 400 JSON each (v1 and v2), nothing on stderr, no file in the upload folder or the media', async () => {
    const written = watchStderr();
    const before = storedFiles(inst);
    const rows = inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM media_attachments').get({})?.n;
    for (const length of cuts(upload.bytes.length, 24)) {
      for (const path of ['/api/v1/media', '/api/v2/media']) {
        const res = onlyAnswer(await rawPost(inst.url, path, { 'Content-Type': upload.type, Authorization: `Bearer ${alice.token}` }, upload.bytes.subarray(0, length)));
        expect(res, `${path} cut at ${length}`).toEqual({ status: 400, body: { error: 'Error occurred while parsing request parameters' } });
      }
    }
    // Files are removed before the answer goes out: nothing to wait for.
    expect(spooledFiles()).toEqual([]);
    expect(storedFiles(inst)).toEqual(before);
    expect(inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM media_attachments').get({})?.n).toBe(rows);
    expect(written()).toEqual([]);
  });

  it('a client that goes away in the middle of an upload leaves no file behind', async () => {
    const written = watchStderr();
    const { hostname, port } = new URL(inst.url);
    for (let i = 0; i < 6; i++) {
      await new Promise<void>((resolve, reject) => {
        const socket = connect(Number(port), hostname, () => {
          socket.write(
            [`POST /api/v1/media HTTP/1.1`, `Host: ${hostname}:${port}`, `Authorization: Bearer ${alice.token}`, `Content-Type: ${upload.type}`, `Content-Length: ${upload.bytes.length}`, '', ''].join('\r\n'),
          );
          // Half the body, then the connection is dropped.
          socket.write(upload.bytes.subarray(0, Math.floor(upload.bytes.length / 2)), () => setTimeout(() => socket.destroy(), 30));
        });
        socket.on('close', () => resolve());
        socket.on('error', reject);
      });
    }
    await eventually(() => (spooledFiles().length === 0 ? true : undefined), 5_000);
    expect(written()).toEqual([]);
  });

  it('the whole body, for comparison, is an upload; its spooled file goes once answered', async () => {
    const before = spooledFiles();
    const res = await alice.client.post('/api/v1/media', undefined, { multipart: form({ file: { data: await picture(40, 40, 'png'), type: 'image/png' } }) });
    expect(res.status, res.text).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(spooledFiles()).toEqual(before);
  });
});
