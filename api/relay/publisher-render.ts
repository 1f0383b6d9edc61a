// Rendering for the cache publisher: each public document is requested from the instance's own
// listener as a peer would request it (Host set to the public origin's host, a peer's Accept), so
// the relay's cache holds exactly the bytes a peer gets from the instance. node:http, not the
// global fetch: while the instance federates through a relay, `fetch` goes through the relay.
import type { Agent, IncomingMessage } from 'node:http';
import { http } from '../util/node-http.js';

/** The Accept a peer sends for ActivityPub documents. */
export const ACTIVITY_JSON = 'application/activity+json';

/** What the instance answered for a document. */
export type LocalAnswer =
  | { kind: 'ok'; contentType: string; body: Buffer }
  /** 404 or 410: the instance does not serve it (not public, gone, suspended). */
  | { kind: 'absent'; status: number }
  /** Larger than the caller's limit (announced or read): not read further. */
  | { kind: 'too-large'; size: number };

/** Thrown when the instance's answer is neither a document nor an absence (5xx, a broken connection): try again later. */
export class RenderError extends Error {}

/** How long the instance may take to answer one request. */
const RENDER_TIMEOUT_MS = 30_000;

/** Requests documents from the instance's own listener as peers see them. */
export class LocalRenderer {
  private readonly agent: Agent;
  private readonly local: URL;

  constructor(
    localUrl: string,
    /** The public origin's host, sent as Host. */
    private readonly host: string,
  ) {
    this.local = new URL(localUrl);
    this.agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
  }

  /** GETs `path` (path and query) with `accept`; reads at most `maxBytes` of the body. */
  get(path: string, accept: string | null, maxBytes: number): Promise<LocalAnswer> {
    return new Promise<LocalAnswer>((resolve, reject) => {
      const headers: Record<string, string> = { host: this.host, 'user-agent': 'hearth-relay-publisher' };
      if (accept) headers.accept = accept;
      const req = http.request({ host: this.local.hostname, port: this.local.port, method: 'GET', path, headers, agent: this.agent }, (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status === 404 || status === 410) {
          res.resume();
          resolve({ kind: 'absent', status });
          return;
        }
        if (status !== 200) {
          res.resume();
          reject(new RenderError(`the instance answered ${status} for ${path}`));
          return;
        }
        const announced = Number(res.headers['content-length'] ?? NaN);
        if (Number.isFinite(announced) && announced > maxBytes) {
          res.destroy();
          resolve({ kind: 'too-large', size: announced });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxBytes) {
            res.destroy();
            resolve({ kind: 'too-large', size });
            return;
          }
          chunks.push(chunk);
        });
        res.on('end', () => resolve({ kind: 'ok', contentType: String(res.headers['content-type'] ?? 'application/octet-stream'), body: Buffer.concat(chunks) }));
        res.on('error', (err) => reject(new RenderError(`reading ${path}: ${err.message}`)));
      });
      req.setTimeout(RENDER_TIMEOUT_MS, () => req.destroy(new Error(`no answer within ${RENDER_TIMEOUT_MS / 1000} s`)));
      req.on('error', (err) => reject(new RenderError(`requesting ${path}: ${err.message}`)));
      req.end();
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    this.agent.destroy();
  }
}

/**
 * The cache key of a URL on the instance: its path and query, as a peer requests it and the relay
 * looks it up (a WebFinger query's key is made by `webfingerKey`).
 */
export function keyOfUrl(url: string | URL): string {
  const u = typeof url === 'string' ? new URL(url) : url;
  return `${u.pathname}${u.search}`;
}

/**
 * The cache key of a WebFinger query for `resource`, as the relay normalizes it: the resource
 * decoded, an `acct:` handle in lower case (so that every spelling of a handle finds the document).
 */
export function webfingerKey(resource: string): string {
  const normalized = resource.toLowerCase().startsWith('acct:') ? resource.toLowerCase() : resource;
  return `/.well-known/webfinger?resource=${normalized}`;
}

/** The path (with query) that asks WebFinger about `resource`. */
export function webfingerPath(resource: string): string {
  return `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
}
