// The tunnel protocol between a Hearth instance and its relay: the only module the two sides
// share (ARCHITECTURE.md, "Who may import whom"). The instance dials the relay over a WebSocket at
// TUNNEL_PATH; every message is one binary WebSocket message holding a frame: a JSON header and
// an optional body of raw bytes (see encodeFrame). Headers are checked against the schemas below
// on arrival, so neither side trusts the other's shapes.
import { z } from 'zod';

/** Version of the protocol, sent in the challenge; a relay refuses logins of another version. */
export const PROTOCOL_VERSION = 1;

/** Path of the tunnel's WebSocket on the relay's own host. */
export const TUNNEL_PATH = '/.hearth/tunnel';

/** Largest frame either side accepts (header and body). Larger bodies travel as chunks. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/** Largest document or file a tenant may publish to the relay's cache. */
export const MAX_PUBLISH_BYTES = 100 * 1024 * 1024;

/** Bodies of streamed answers are cut into chunks of this size. */
export const CHUNK_BYTES = 256 * 1024;

/** How often each side pings the other; a side silent for three intervals is taken as gone. */
export const HEARTBEAT_MS = 20_000;

/** How long the relay keeps a repeated inbox body from being stored twice. */
export const DEDUPE_WINDOW_MS = 14 * 24 * 60 * 60 * 1000;

/** How long the relay keeps an unacknowledged inbound message. */
export const RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/** HTTP header name/value pairs in wire order (names may repeat). */
const headerList = z.array(z.tuple([z.string(), z.string()])).max(200);

/** An identifier of a multiplexed exchange (a live request, a send, a fetch, a publish). */
const exchangeId = z.string().min(1).max(64);

/** Why a login or enrolment was refused. */
export const REFUSALS = ['protocol', 'bad-code', 'bad-signature', 'unknown-host', 'replaced', 'removed'] as const;
export type Refusal = (typeof REFUSALS)[number];

/** Priority classes of inbound messages; over quota the relay sheds from the lowest. */
export const PRIORITIES = { low: 0, normal: 1, keep: 2 } as const;

const relayFrames = z.discriminatedUnion('t', [
  /** First frame on every connection: a fresh nonce that the login or enrolment must sign. */
  z.object({ t: z.literal('challenge'), version: z.number().int(), relay: z.string(), nonce: z.string().min(16).max(128) }),
  /** Logged in: the tenant's host and public origin, its backlog, whether client traffic is carried. */
  z.object({
    t: z.literal('welcome'),
    host: z.string(),
    origin: z.string(),
    clients: z.boolean(),
    backlog: z.number().int().nonnegative(),
  }),
  /** The login or enrolment failed (or the tunnel was replaced by a newer one); the relay closes. */
  z.object({ t: z.literal('refused'), reason: z.enum(REFUSALS), message: z.string() }),
  /**
   * A stored inbox delivery, replayed in sequence order. `receivedAt` is when the relay accepted it
   * (ms since epoch): the instance checks the signature's freshness against it.
   */
  z.object({
    t: z.literal('inbound'),
    seq: z.number().int().positive(),
    receivedAt: z.number().int(),
    method: z.string(),
    path: z.string(),
    headers: headerList,
  }),
  /** The backlog as the relay sees it, and what it shed over quota since the tenant was created. */
  z.object({
    t: z.literal('backlog'),
    count: z.number().int().nonnegative(),
    bytes: z.number().int().nonnegative(),
    oldestAt: z.number().int().nullable(),
    shed: z.record(z.string(), z.number().int().nonnegative()),
  }),
  /** A live request for the instance (any request to its host but an inbox POST). Body follows as chunks when `streamed`. */
  z.object({
    t: z.literal('request'),
    id: exchangeId,
    method: z.string(),
    path: z.string(),
    headers: headerList,
    streamed: z.boolean(),
  }),
  /** A client's WebSocket to the instance (the streaming API, with --relay-clients): opened through the tunnel. */
  z.object({ t: z.literal('ws-open'), id: exchangeId, path: z.string(), headers: headerList }),
  /** The relay gives up on a live request (its client went away, or it timed out). */
  z.object({ t: z.literal('cancel'), id: exchangeId }),
  /** The outcome of a `send`: the peer's answer, or why there was none (`status` null). */
  z.object({
    t: z.literal('sent'),
    id: exchangeId,
    status: z.number().int().nullable(),
    error: z.string().nullable(),
    attempts: z.number().int().nonnegative(),
    /** The first bytes of the peer's answer (for logs). */
    answer: z.string().max(2048),
  }),
  /** Head of the answer to a `fetch`; the body follows as chunks and an `end`. */
  z.object({ t: z.literal('fetched'), id: exchangeId, status: z.number().int(), headers: headerList, url: z.string() }),
  /**
   * A `publish` or `unpublish` was stored, or not: `refused` when the relay will not take the
   * document as it is (not public, too large, over quota; sending it again changes nothing), else
   * a failure of the relay's own (worth trying again).
   */
  z.object({ t: z.literal('published'), id: exchangeId, ok: z.boolean(), refused: z.boolean(), error: z.string().nullable() }),
]);

const instanceFrames = z.discriminatedUnion('t', [
  /** First contact: the one-time enrolment code and the instance's Ed25519 tunnel key (SPKI DER, base64). */
  z.object({
    t: z.literal('enrol'),
    code: z.string().min(8).max(128),
    publicKey: z.string().max(200),
    signature: z.string().max(200),
    clients: z.boolean(),
  }),
  /** Later connections: the tenant's host and a signature of the challenge with its tunnel key. */
  z.object({ t: z.literal('login'), host: z.string().max(300), signature: z.string().max(200), clients: z.boolean() }),
  /**
   * The instance has committed an inbound message (or refused it for good: `applied` false with
   * the status it answered); the relay may forget it.
   */
  z.object({ t: z.literal('ack'), seq: z.number().int().positive(), applied: z.boolean(), status: z.number().int() }),
  /** The instance could not take an inbound message now (a key it could not fetch): try again later. */
  z.object({ t: z.literal('defer'), seq: z.number().int().positive(), retryInMs: z.number().int().nonnegative(), reason: z.string().max(500) }),
  /** Head of the answer to a live request; the body follows as chunks and an `end`. */
  z.object({ t: z.literal('response'), id: exchangeId, status: z.number().int(), headers: headerList }),
  /**
   * A delivery the instance signed: the relay sends it as is (retrying until `validUntil`, when the
   * signature would no longer be accepted) and answers with `sent`.
   */
  z.object({
    t: z.literal('send'),
    id: exchangeId,
    url: z.string(),
    headers: headerList,
    validUntil: z.number().int(),
  }),
  /** A signed GET (or an unsigned one, WebFinger) for the relay to make; answered by `fetched`, chunks and `end`. */
  z.object({ t: z.literal('fetch'), id: exchangeId, url: z.string(), headers: headerList }),
  /**
   * A public document for the relay's cache, under `key` (the path and query it answers) and its
   * aliases. `status` 410 with a Tombstone marks a deleted object. The body is the frame's body,
   * or, when `streamed` (a file too large for one frame), follows as chunks and an `end`.
   */
  z.object({
    t: z.literal('publish'),
    id: exchangeId,
    key: z.string().max(2048),
    aliases: z.array(z.string().max(2048)).max(8),
    status: z.union([z.literal(200), z.literal(410)]),
    contentType: z.string().max(200),
    streamed: z.boolean(),
  }),
  /** The instance's answer to `ws-open`: accepted, or refused with an HTTP status. */
  z.object({ t: z.literal('ws-opened'), id: exchangeId, ok: z.boolean(), status: z.number().int(), protocol: z.string().nullable() }),
  /** Removes a cached document (it stopped being public without being deleted). */
  z.object({ t: z.literal('unpublish'), id: exchangeId, key: z.string().max(2048) }),
]);

/** Frames both sides send: heartbeats and the pieces of streamed bodies. */
const commonFrames = z.discriminatedUnion('t', [
  z.object({ t: z.literal('ping'), at: z.number() }),
  z.object({ t: z.literal('pong'), at: z.number() }),
  /** A piece of a streamed body (of a request, a response or a fetch); the bytes are the frame's body. */
  z.object({ t: z.literal('chunk'), id: exchangeId }),
  /** The end of a streamed body; `error` when it broke off. */
  z.object({ t: z.literal('end'), id: exchangeId, error: z.string().nullable() }),
  /** A message on a tunnelled WebSocket; the bytes are the frame's body. */
  z.object({ t: z.literal('ws-data'), id: exchangeId, binary: z.boolean() }),
  /** A tunnelled WebSocket closed on one side. */
  z.object({ t: z.literal('ws-close'), id: exchangeId, code: z.number().int() }),
]);

export type RelayFrame = z.infer<typeof relayFrames>;
export type InstanceFrame = z.infer<typeof instanceFrames>;
export type CommonFrame = z.infer<typeof commonFrames>;
/** What the relay may send. */
export type ToInstance = RelayFrame | CommonFrame;
/** What the instance may send. */
export type ToRelay = InstanceFrame | CommonFrame;

const toInstance = z.union([relayFrames, commonFrames]);
const toRelay = z.union([instanceFrames, commonFrames]);

/** A decoded frame with its body (empty when it has none). */
export interface Decoded<F> {
  frame: F;
  body: Buffer;
}

/** Thrown for a message that is not a well-formed frame of the expected direction. */
export class ProtocolError extends Error {}

/** Encodes a frame: 4 bytes of header length (big-endian), the header as JSON, then the body. */
export function encodeFrame(frame: ToInstance | ToRelay, body?: Uint8Array): Buffer {
  const header = Buffer.from(JSON.stringify(frame), 'utf8');
  const out = Buffer.allocUnsafe(4 + header.length + (body?.length ?? 0));
  out.writeUInt32BE(header.length, 0);
  header.copy(out, 4);
  if (body) out.set(body, 4 + header.length);
  return out;
}

function decode<F>(data: Buffer, schema: z.ZodType<F>): Decoded<F> {
  if (data.length < 4) throw new ProtocolError('frame too short');
  const length = data.readUInt32BE(0);
  if (length > 64 * 1024 || 4 + length > data.length) throw new ProtocolError('bad frame header length');
  let json: unknown;
  try {
    json = JSON.parse(data.subarray(4, 4 + length).toString('utf8'));
  } catch {
    throw new ProtocolError('frame header is not JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) throw new ProtocolError(`unexpected frame: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return { frame: parsed.data, body: data.subarray(4 + length) };
}

/** Decodes a frame the relay sent (on the instance side). */
export function decodeToInstance(data: Buffer): Decoded<ToInstance> {
  return decode(data, toInstance);
}

/** Decodes a frame the instance sent (on the relay side). */
export function decodeToRelay(data: Buffer): Decoded<ToRelay> {
  return decode(data, toRelay);
}

/**
 * The bytes an instance signs with its tunnel key: the purpose, the relay's domain, the nonce of
 * this connection's challenge, and what is claimed (the enrolment code and key, or the host).
 * Binding the relay and the nonce means a signature is good for one connection to one relay.
 */
export function authMessage(purpose: 'enrol' | 'login', relay: string, nonce: string, claim: string): Buffer {
  return Buffer.from(`hearth-relay-v${PROTOCOL_VERSION}\n${purpose}\n${relay}\n${nonce}\n${claim}`, 'utf8');
}

/** Header pairs from Node's flat rawHeaders list. */
export function headerPairs(raw: readonly string[]): [string, string][] {
  const out: [string, string][] = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}

/** Hop-by-hop headers (RFC 9110 §7.6.1) and those a proxy sets itself: never carried through the tunnel. */
export const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'content-length']);

/**
 * Paths peers and readers of public pages may reach at a tenant's host at any time: discovery
 * (WebFinger, host-meta, NodeInfo), actors with their collections, statuses and inboxes, the
 * files of public media, and the public pages of profiles and tags. Everything else (the Mastodon
 * API, OAuth and its pages, streaming, the app) is the client side, carried only for a tenant that
 * opted in (`--relay-clients`). Both sides check it: the relay
 * before it carries a request, the instance before it answers one.
 */
export function isPublicPath(pathname: string): boolean {
  return (
    pathname.startsWith('/.well-known/') ||
    pathname.startsWith('/nodeinfo/') ||
    pathname.startsWith('/users/') ||
    pathname === '/inbox' ||
    pathname.startsWith('/system/') ||
    pathname.startsWith('/@') ||
    pathname.startsWith('/tags/') ||
    pathname === '/robots.txt' ||
    pathname === '/favicon.ico'
  );
}
