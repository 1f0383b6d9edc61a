import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FileServer, HOST } from './remote-helpers.js';

/**
 * A remote file server for the byte range tests, on a loopback address. Files under `/ranged/`
 * are served as a range-capable server does (one `bytes=` range, 206 or 416, `Accept-Ranges`, a
 * strong ETag honoured in If-Range); files under `/plain/` always come whole (200, no
 * `Accept-Ranges`), as from a server without range support. `/lying/<name>` answers any range
 * with a 206 that claims a 200 MB file. The headers of the last request of each path are kept.
 */
export class RangeServer extends FileServer {
  requests = new Map<string, IncomingHttpHeaders>();

  /** The ETag the server gives a file. */
  etagOf(body: Buffer): string {
    return `"v1-${body.length.toString(16)}"`;
  }

  override async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server.listen(0, HOST, resolve));
    this.base = `http://${HOST}:${(this.server.address() as AddressInfo).port}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const path = req.url ?? '/';
    this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
    this.requests.set(path, req.headers);
    const m = /^\/(ranged|plain|lying)(\/.+)$/.exec(path);
    const file = m ? this.files.get(m[2] ?? '') : undefined;
    if (!m || !file) {
      res.writeHead(404).end();
      return;
    }
    const size = file.body.length;
    if (m[1] === 'plain') {
      res.writeHead(200, { 'content-type': file.type, 'content-length': String(size) });
      res.end(file.body);
      return;
    }
    if (m[1] === 'lying' && req.headers.range) {
      res.writeHead(206, { 'content-type': file.type, 'content-length': '10', 'content-range': `bytes 0-9/${200 * 1024 * 1024}` });
      res.end(file.body.subarray(0, 10));
      return;
    }
    const etag = this.etagOf(file.body);
    const headers = { 'content-type': file.type, 'accept-ranges': 'bytes', etag, 'last-modified': 'Tue, 03 Nov 2026 10:00:00 GMT' };
    const ifRange = req.headers['if-range'];
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    if (range && (!ifRange || ifRange === etag)) {
      let start = range[1] === '' ? size - Number(range[2]) : Number(range[1]);
      const end = range[1] === '' || range[2] === '' ? size - 1 : Math.min(Number(range[2]), size - 1);
      start = Math.max(0, start);
      if (start >= size) {
        res.writeHead(416, { ...headers, 'content-range': `bytes */${size}`, 'content-type': 'text/html' });
        res.end('<p>Range Not Satisfiable</p>');
        return;
      }
      res.writeHead(206, { ...headers, 'content-length': String(end - start + 1), 'content-range': `bytes ${start}-${end}/${size}` });
      res.end(file.body.subarray(start, end + 1));
      return;
    }
    res.writeHead(200, { ...headers, 'content-length': String(size) });
    res.end(file.body);
  }
}

/** A GET (or HEAD) with headers: status, the headers that matter here, and the body. */
export async function fetchRange(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Headers; body: Buffer }> {
  const res = await fetch(url, { method, headers });
  return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) };
}
