import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { PassThrough, type Readable } from 'node:stream';
import { http, https } from './node-http.js';

/**
 * HTTP GET of untrusted URLs (link previews, remote pictures) with hard limits: a total time for
 * the whole exchange (redirects and body included), a body size (after decompression), a number
 * of redirects, http(s) only, and never a private, loopback, link-local or otherwise special
 * address, checked on the address actually connected to (so a DNS answer cannot point us inside).
 * `allowPrivate` lifts the address check, for tests on loopback only.
 */

/** Why a fetch failed. */
export type FetchFailure = 'bad_url' | 'forbidden_address' | 'timeout' | 'too_large' | 'too_many_redirects' | 'status' | 'network';

/** A failed fetch, with its reason. */
export class FetchError extends Error {
  constructor(
    readonly reason: FetchFailure,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'FetchError';
  }
}

/** Limits and headers of one fetch. */
export interface SafeFetchOptions {
  /** Milliseconds for everything: connection, redirects, headers and body. */
  timeoutMs: number;
  /** Bytes of (decompressed) body accepted. */
  maxBytes: number;
  maxRedirects: number;
  /** Reach private and loopback addresses (tests only). */
  allowPrivate: boolean;
  accept: string;
  userAgent: string;
  /** More request headers (a `Range` for the media proxy); they override the defaults above. */
  headers?: Readonly<Record<string, string>>;
  /** Non-2xx statuses `safeFetchStream` hands over as answers instead of failures (416, for the media proxy). */
  passStatuses?: readonly number[];
}

/** A successful (2xx) answer. */
export interface SafeResponse {
  /** The URL finally answered, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The media type, lower case, without parameters ('' when absent). */
  contentType: string;
  /** The charset parameter of Content-Type, if any. */
  charset: string | null;
  body: Buffer;
}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15],
  ['198.51.100.0', 24], ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128], ['::1', 128], ['100::', 64], ['2001::', 23], ['2001:db8::', 32], ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
] as const) {
  blocked.addSubnet(net, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address in text form. */
function ipv6Bytes(address: string): number[] | null {
  let text = address.split('%')[0] ?? '';
  const tail: number[] = [];
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    tail.push(...v4[1].split('.').map(Number));
    text = `${text.slice(0, -v4[1].length)}0:0`;
  }
  const [head = '', rest] = text.split('::');
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((h) => parseInt(h, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  const zeros = 8 - left.length - right.length;
  if (zeros < 0 || (rest === undefined && zeros !== 0)) return null;
  const groups = [...left, ...Array<number>(zeros).fill(0), ...right];
  const bytes = groups.flatMap((g) => [(g >> 8) & 0xff, g & 0xff]);
  if (tail.length === 4) bytes.splice(12, 4, ...tail);
  return bytes;
}

/** Whether an IP address is one we must never connect to (unless private addresses are allowed). */
export function isForbiddenAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, 'ipv4');
  if (family !== 6) return true;
  const bytes = ipv6Bytes(address);
  if (!bytes) return true;
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible and NAT64 (64:ff9b::a.b.c.d) addresses carry an
  // IPv4 address that decides.
  const mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  const nat64 = bytes[0] === 0x00 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && bytes.slice(4, 12).every((b) => b === 0);
  if (mapped || nat64) return blocked.check(bytes.slice(12).join('.'), 'ipv4');
  return blocked.check(address, 'ipv6');
}

/** A DNS lookup that refuses hosts resolving to a forbidden address. */
function guardedLookup(allowPrivate: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 4);
      const list = addresses ?? [];
      // One bad address taints the name: the connection could be steered to it.
      if (!allowPrivate && list.some((a) => isForbiddenAddress(a.address))) {
        return callback(new FetchError('forbidden_address', `${hostname} resolves to a private address`), '', 4);
      }
      if (list.length === 0) return callback(new FetchError('network', `${hostname} has no address`), '', 4);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      callback(null, first.address, first.family);
    });
  };
}

function decoder(res: IncomingMessage): Readable {
  switch ((res.headers['content-encoding'] ?? '').toLowerCase().trim()) {
    case 'gzip':
    case 'x-gzip':
      return res.pipe(createGunzip());
    case 'deflate':
      return res.pipe(createInflate());
    case 'br':
      return res.pipe(createBrotliDecompress());
    default:
      return res;
  }
}

function parseContentType(value: string | undefined): { type: string; charset: string | null } {
  const [type = '', ...params] = (value ?? '').split(';');
  const charset = params.map((p) => /^\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(p)?.[1]).find((c) => c !== undefined) ?? null;
  return { type: type.trim().toLowerCase(), charset };
}

/** One request, no redirects followed: resolves with the response (body not read yet). */
function requestOnce(url: URL, options: SafeFetchOptions, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = url.protocol === 'https:' ? https().request : http.request;
    const req = request(
      url,
      {
        method: 'GET',
        headers: { accept: options.accept, 'user-agent': options.userAgent, 'accept-encoding': 'gzip, deflate, br', ...options.headers },
        lookup: guardedLookup(options.allowPrivate),
        signal,
        // A fresh connection per request: an agent's pooled socket would skip the address check.
        agent: false,
      },
      resolve,
    );
    req.on('error', reject);
    req.end();
  });
}

function readBody(res: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(res.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes) {
      res.destroy();
      reject(new FetchError('too_large', `body of ${declared} bytes is over ${maxBytes}`));
      return;
    }
    const stream = decoder(res);
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        res.destroy();
        stream.destroy();
        reject(new FetchError('too_large', `body over ${maxBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    let ended = false;
    stream.on('end', () => {
      ended = true;
      resolve(Buffer.concat(chunks));
    });
    stream.on('error', (err) => reject(err));
    res.on('error', (err) => reject(err));
    // A connection cut (or aborted by the deadline) before the end settles the promise too.
    res.on('close', () => {
      if (!ended && !res.complete) reject(new FetchError('network', 'connection closed before the end of the body'));
    });
  });
}

/** Checks a URL we are about to request: http(s), no credentials, an allowed literal address. */
function checkUrl(raw: string | URL, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (err) {
    throw new FetchError('bad_url', `not a URL: ${String(raw)}`, { cause: err });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new FetchError('bad_url', `unsupported scheme: ${url.protocol}`);
  if (url.username || url.password) throw new FetchError('bad_url', 'credentials in URL');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Literal addresses never go through the DNS lookup, so they are checked here.
  if (isIP(host) && !allowPrivate && isForbiddenAddress(host)) throw new FetchError('forbidden_address', `${host} is a private address`);
  return url;
}

/**
 * GETs a URL within the limits, following up to `maxRedirects` redirects. Resolves with a 2xx
 * answer and its body; rejects with a FetchError otherwise.
 */
export async function safeFetch(target: string, options: SafeFetchOptions): Promise<SafeResponse> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchError('timeout', `no complete answer within ${options.timeoutMs} ms`)), options.timeoutMs);
  try {
    let url = checkUrl(target, options.allowPrivate);
    for (let redirects = 0; ; redirects++) {
      const res = await requestOnce(url, options, controller.signal);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.destroy();
        if (redirects >= options.maxRedirects) throw new FetchError('too_many_redirects', `more than ${options.maxRedirects} redirects`);
        url = checkUrl(new URL(res.headers.location, url), options.allowPrivate);
        continue;
      }
      if (status < 200 || status >= 300) {
        res.destroy();
        throw new FetchError('status', `answered ${status}`);
      }
      const body = await readBody(res, options.maxBytes);
      const { type, charset } = parseContentType(res.headers['content-type']);
      return { url: url.toString(), status, headers: res.headers, contentType: type, charset, body };
    }
  } catch (err) {
    if (controller.signal.aborted && controller.signal.reason instanceof FetchError) throw controller.signal.reason;
    if (err instanceof FetchError) throw err;
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof FetchError) throw cause;
    throw new FetchError('network', (err as Error).message, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}

/** A successful (2xx, or one of `passStatuses`) answer whose body is read as a stream (see `safeFetchStream`). */
export interface SafeStream {
  /** The URL finally answered, after redirects. */
  url: string;
  status: number;
  headers: IncomingHttpHeaders;
  /** The media type, lower case, without parameters ('' when absent). */
  contentType: string;
  /** The body's length when the server declared it and sent it unencoded; null otherwise. */
  length: number | null;
  /**
   * The (decompressed) body. It fails with a FetchError when it grows past `maxBytes`, when the
   * deadline passes, or when the connection is cut before its end.
   */
  body: Readable;
  /** Stops reading: closes the connection and clears the deadline. */
  close(): void;
}

/**
 * GETs a URL within the same limits as `safeFetch` (addresses, redirects, a deadline covering the
 * whole exchange, body included, and a size limit), but hands the body over as a stream instead of
 * reading it into memory, for files too large to buffer. `signal` aborts it from outside.
 */
export async function safeFetchStream(target: string, options: SafeFetchOptions & { signal?: AbortSignal }): Promise<SafeStream> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new FetchError('timeout', `no complete answer within ${options.timeoutMs} ms`)), options.timeoutMs);
  const onOuterAbort = () => controller.abort(new FetchError('network', 'aborted'));
  if (options.signal?.aborted) onOuterAbort();
  options.signal?.addEventListener('abort', onOuterAbort, { once: true });
  const finish = () => {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onOuterAbort);
  };
  let res: IncomingMessage;
  let url: URL;
  try {
    url = checkUrl(target, options.allowPrivate);
    for (let redirects = 0; ; redirects++) {
      res = await requestOnce(url, options, controller.signal);
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.destroy();
        if (redirects >= options.maxRedirects) throw new FetchError('too_many_redirects', `more than ${options.maxRedirects} redirects`);
        url = checkUrl(new URL(res.headers.location, url), options.allowPrivate);
        continue;
      }
      if ((status < 200 || status >= 300) && !options.passStatuses?.includes(status)) {
        res.destroy();
        throw new FetchError('status', `answered ${status}`);
      }
      break;
    }
  } catch (err) {
    finish();
    if (controller.signal.aborted && controller.signal.reason instanceof FetchError) throw controller.signal.reason;
    if (err instanceof FetchError) throw err;
    const cause = (err as { cause?: unknown }).cause;
    if (cause instanceof FetchError) throw cause;
    throw new FetchError('network', (err as Error).message, { cause: err });
  }
  const declared = Number(res.headers['content-length']);
  const encoded = (res.headers['content-encoding'] ?? 'identity').toLowerCase().trim() !== 'identity';
  if (Number.isFinite(declared) && declared > options.maxBytes && !encoded) {
    res.destroy();
    finish();
    throw new FetchError('too_large', `body of ${declared} bytes is over ${options.maxBytes}`);
  }
  const decoded = decoder(res);
  const limited = new PassThrough();
  // Errors reach whoever reads the body; this keeps one that comes before any reader from crashing.
  limited.on('error', () => undefined);
  let size = 0;
  let ended = false;
  let closed = false;
  const fail = (err: FetchError) => {
    if (closed) return;
    closed = true;
    finish();
    res.destroy();
    if (decoded !== res) decoded.destroy();
    limited.destroy(err);
  };
  decoded.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > options.maxBytes) return fail(new FetchError('too_large', `body over ${options.maxBytes} bytes`));
    // Backpressure: a slow reader pauses the connection instead of filling memory.
    if (!limited.write(chunk)) decoded.pause();
  });
  limited.on('drain', () => decoded.resume());
  decoded.on('end', () => {
    ended = true;
    finish();
    limited.end();
  });
  decoded.on('error', (err) => fail(err instanceof FetchError ? err : new FetchError('network', err.message, { cause: err })));
  res.on('close', () => {
    if (ended || res.complete) return;
    const reason: unknown = controller.signal.reason;
    fail(reason instanceof FetchError ? reason : new FetchError('network', 'connection closed before the end of the body'));
  });
  const { type } = parseContentType(res.headers['content-type']);
  return {
    url: url.toString(),
    status: res.statusCode ?? 200,
    headers: res.headers,
    contentType: type,
    length: Number.isFinite(declared) && !encoded ? declared : null,
    body: limited,
    close() {
      if (closed) return;
      closed = true;
      finish();
      res.destroy();
      if (!ended) limited.destroy();
    },
  };
}
