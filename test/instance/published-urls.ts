import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';

/**
 * Helpers for the tests of where published URLs point: raw requests that set the Host and
 * forwarding headers as a TLS proxy does (fetch always writes its own Host), over HTTP, HTTPS with
 * the instance's own authority, or a Unix socket; and a scan of answers for URLs that name
 * another base than the one the client used.
 */

/** An answer as these tests read it. */
export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

export interface RawOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** For https: the authority to trust (PEM). */
  ca?: string | Buffer;
  /** Sends the request over this Unix socket instead of TCP (a peer that is not on loopback). */
  socketPath?: string;
}

/** Resolves every name to 127.0.0.1 (names such as hearth.localhost need no resolver configuration). */
export const toLoopback: LookupFunction = (_hostname, options, callback) => {
  if (options.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
  else callback(null, '127.0.0.1', 4);
};

/** One request with exactly the headers given (Host included), over http or https. */
export function rawRequest(url: string, options: RawOptions = {}): Promise<RawResponse> {
  const target = new URL(url);
  const secure = target.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (options.body !== undefined) headers['content-length'] = String(Buffer.byteLength(options.body));
  return new Promise((resolve, reject) => {
    const req = send(
      {
        method: options.method ?? 'GET',
        hostname: target.hostname.replace(/^\[|\]$/g, ''),
        port: target.port,
        path: `${target.pathname}${target.search}`,
        headers,
        socketPath: options.socketPath,
        lookup: toLoopback,
        agent: false,
        ...(secure ? { ca: options.ca, servername: target.hostname } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          if ((res.headers['content-type'] ?? '').includes('json') && text) json = JSON.parse(text);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A FormData as the bytes and Content-Type of a multipart body. */
export async function multipartBody(form: FormData): Promise<{ body: Buffer; type: string }> {
  const req = new Request('http://localhost/', { method: 'POST', body: form });
  return { body: Buffer.from(await req.arrayBuffer()), type: req.headers.get('content-type') ?? '' };
}

/** Documents of other sites that answers name on purpose (specifications, Mastodon's documentation). */
const EXTERNAL = ['https://docs.joinmastodon.org/', 'http://nodeinfo.diaspora.software/', 'http://docs.oasis-open.org/'];

/** Every absolute URL in a text (JSON bodies, Link headers, pages, XRD). */
export function urlsIn(text: string): string[] {
  return [...text.matchAll(/\b(?:https?|wss?):\/\/[^\s"'<>\\)]+/g)].map((m) => m[0]);
}

/**
 * The URLs of a text that name another scheme or host than `base` (`https://hearth.example`) or its
 * streaming twin (`wss://…`), leaving out the external documents answers link to on purpose.
 */
export function foreignUrls(text: string, base: string): string[] {
  const ws = base.replace(/^http/, 'ws');
  const own = (url: string) => [base, ws].some((b) => url === b || url.startsWith(`${b}/`) || url.startsWith(`${b}?`));
  return urlsIn(text).filter((url) => !own(url) && !EXTERNAL.some((e) => url.startsWith(e)));
}
