import { connect } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import type { TestUser } from '../helpers/instance.js';
import { picture, upload } from '../media/helpers.js';

/** A raw HTTP exchange: the exact bytes sent, the whole answer read until the server closes. */
function exchange(url: string, request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const i = line.indexOf(':');
        headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
      }
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
  });
}

/**
 * Every error under /api, /system and /media_proxy is a JSON `{"error": …}`, including those Node
 * answers before Express sees the request (headers too large, a request it cannot parse), a
 * request with two Host headers or none, and files that are not there.
 */
describe('errors are JSON everywhere clients and servers fetch from', () => {
  const env = useInstance(['alice']);
  let url = '';
  let host = '';
  let alice: TestUser;
  beforeAll(() => {
    url = env().inst.url;
    host = new URL(url).host;
    alice = env().users.alice;
  });

  it('an unknown route, whatever the method, is a 404 with Mastodon’s text', async () => {
    for (const method of ['GET', 'POST', 'DELETE', 'TRACE']) {
      const res = await exchange(url, `${method} /api/v1/nothing-here HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
      expect(res.status, method).toBe(404);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(JSON.parse(res.body)).toEqual({ error: 'Record not found' });
    }
  });

  it('headers too large: 431 with a JSON body (Node answers it before Express)', async () => {
    const res = await exchange(url, `GET /api/v1/instance HTTP/1.1\r\nHost: ${host}\r\nX-Big: ${'a'.repeat(20_000)}\r\nConnection: close\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.body)));
    expect(JSON.parse(res.body)).toEqual({ error: 'Request Header Fields Too Large' });
  });

  it('a request Node cannot parse (a control character in a header, a bad Content-Length): 400 with a JSON body', async () => {
    for (const broken of [`X-A: a\u0001b\r\n`, `Content-Length: abc\r\n`]) {
      const res = await exchange(url, `POST /api/v1/apps HTTP/1.1\r\nHost: ${host}\r\n${broken}Connection: close\r\n\r\n`);
      expect(res.status).toBe(400);
      expect(JSON.parse(res.body)).toEqual({ error: 'Bad Request' });
    }
  });

  it('two Host headers, or none from an HTTP/1.1 client: 400 with a JSON body', async () => {
    const two = await exchange(url, `GET /api/v1/instance HTTP/1.1\r\nHost: ${host}\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(two.status).toBe(400);
    expect(JSON.parse(two.body)).toEqual({ error: 'Bad Request' });
    const other = await exchange(url, `GET /api/v1/instance HTTP/1.1\r\nHost: ${host}\r\nHost: evil.example\r\nConnection: close\r\n\r\n`);
    expect(other.status).toBe(400);
    const none = await exchange(url, `GET /api/v1/instance HTTP/1.1\r\nConnection: close\r\n\r\n`);
    expect(none.status).toBe(400);
    expect(JSON.parse(none.body)).toEqual({ error: 'Bad Request' });
    // One Host is served as before.
    const one = await exchange(url, `GET /api/v1/instance HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`);
    expect(one.status).toBe(200);
  });

  it('/system: a file that is not there is a JSON 404, a range past its end a JSON 416', async () => {
    const missing = await alice.client.get('/system/media_attachments/files/000/000/001/original/nothing.png');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Record not found' });
    const media = await upload(alice.client, await picture(32, 32, 'png'), { type: 'image/png', name: 'a.png' });
    expect(media.status).toBe(200);
    const file = new URL(media.body.url as string);
    const whole = await fetch(new URL(file.pathname, url));
    expect(whole.status).toBe(200);
    const past = await fetch(new URL(file.pathname, url), { headers: { range: 'bytes=99999999-' } });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toMatch(/^bytes \*\/\d+$/);
    expect(await past.json()).toEqual({ error: 'Range Not Satisfiable' });
  });

  it('/media_proxy: an unknown file is a JSON 404', async () => {
    for (const path of ['/media_proxy/1234567/original', '/media_proxy/not-an-id/original', '/media_proxy/1234567/large', '/media_proxy/accounts/1/picture']) {
      const res = await alice.client.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
  });
});
