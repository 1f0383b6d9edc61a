import { generateCryptoKeyPair, signRequest } from '@fedify/fedify';
import { createServer, request, type Server } from 'node:http';
import type { webcrypto } from 'node:crypto';
import { freePort } from './helpers.js';

type CryptoKeyPair = webcrypto.CryptoKeyPair;

/** A request the fake server received (deliveries from the instance, signed GETs). */
export interface Received {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown> | null;
}

/** An actor the fake server hosts: its URIs and signing key. */
export interface FakeActor {
  id: string;
  keyId: string;
  inbox: string;
  publicKeyPem: string;
  keys: CryptoKeyPair;
}

/** How the fake server answers POSTs to a path: a status, or a function choosing one per request. */
export type PostAnswer = number | ((received: Received) => number);

/** How to sign a delivery: the spec, another actor's key, or a Digest that does not match. */
export interface SendOptions {
  spec?: 'draft-cavage-http-signatures-12' | 'rfc9421';
  /** Sign with this actor's key instead of the sender's (a wrong key owner). */
  signAs?: FakeActor;
  /** A Digest header set before signing that does not match the body. */
  badDigest?: boolean;
  /** The inbox path on the instance (default the shared inbox). */
  path?: string;
}

async function pemOf(key: webcrypto.CryptoKey): Promise<string> {
  const spki = Buffer.from(await crypto.subtle.exportKey('spki', key)).toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${spki.replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END PUBLIC KEY-----\n`;
}

/**
 * A remote ActivityPub server on a loopback address, written for tests: it serves the documents
 * the test gives it (actors, notes) as `application/activity+json`, answers 410 for paths marked
 * gone and 404 for the rest, accepts POSTs with 202 (or the status set by `answerPosts`), records
 * every request it gets (the instance's deliveries and signed
 * fetches), and signs the activities the test sends to an instance's inbox with its actors' keys.
 */
export class FakeRemote {
  readonly received: Received[] = [];
  private readonly docs = new Map<string, unknown>();
  private readonly gonePaths = new Set<string>();
  private readonly postAnswers = new Map<string, { status: PostAnswer; body: string }>();

  private constructor(
    readonly origin: string,
    private readonly server: Server,
  ) {}

  /** Starts a fake server on `host` (a loopback address) and a free port. */
  static async start(host: string): Promise<FakeRemote> {
    const port = await freePort(host);
    let self: FakeRemote | null = null;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0] ?? '/';
        const text = Buffer.concat(chunks).toString('utf8');
        let body: Record<string, unknown> | null = null;
        try {
          body = text ? (JSON.parse(text) as Record<string, unknown>) : null;
        } catch {
          body = null;
        }
        const received: Received = { method: req.method ?? 'GET', path, headers: req.headers, body };
        self?.received.push(received);
        if (req.method === 'POST') {
          const answer = self?.postAnswers.get(path);
          const status = answer === undefined ? 202 : typeof answer.status === 'function' ? answer.status(received) : answer.status;
          res.writeHead(status, { 'content-type': 'text/plain' }).end(answer?.body ?? '');
          return;
        }
        if (self?.gonePaths.has(path)) {
          res.writeHead(410, { 'content-type': 'text/plain' }).end('Gone');
          return;
        }
        const doc = self?.docs.get(path);
        if (doc === undefined) {
          res.writeHead(404, { 'content-type': 'text/plain' }).end('Not Found');
          return;
        }
        const out = Buffer.from(JSON.stringify(doc));
        res.writeHead(200, { 'content-type': 'application/activity+json; charset=utf-8', 'content-length': String(out.length) }).end(out);
      });
    });
    await new Promise<void>((resolve) => server.listen(port, host, resolve));
    self = new FakeRemote(`http://${host}:${port}`, server);
    return self;
  }

  /** The host (with port) the fake server's handles use. */
  get domain(): string {
    return new URL(this.origin).host;
  }

  /** An absolute URL on the fake server. */
  url(path: string): string {
    return `${this.origin}${path}`;
  }

  /** Serves `body` at `path` (as JSON-LD). */
  serve(path: string, body: unknown): void {
    this.gonePaths.delete(path);
    this.docs.set(path, body);
  }

  /**
   * Answers POSTs to `path` with `status` (a number, or a function of the request) and `body` from
   * now on, instead of 202; `null` restores 202.
   */
  answerPosts(path: string, status: PostAnswer | null, body = ''): void {
    if (status === null) this.postAnswers.delete(path);
    else this.postAnswers.set(path, { status, body });
  }

  /** Answers 410 Gone at `path` from now on (a deleted actor). */
  gone(path: string): void {
    this.docs.delete(path);
    this.gonePaths.add(path);
  }

  /**
   * Makes an actor at `path` with a fresh RSA key; `document` builds its JSON from the actor's
   * URIs and public key, and it is served at once.
   */
  async actor(path: string, document: (a: Omit<FakeActor, 'keys'>) => Record<string, unknown>): Promise<FakeActor> {
    const keys = await generateCryptoKeyPair('RSASSA-PKCS1-v1_5');
    const id = this.url(path);
    const base = { id, keyId: `${id}#main-key`, inbox: `${id}/inbox`, publicKeyPem: await pemOf(keys.publicKey) };
    this.serve(path, document(base));
    return { ...base, keys };
  }

  /** Requests the fake server received, POSTs whose body has this `type` (deliveries). */
  deliveries(type: string): Record<string, unknown>[] {
    return this.received.filter((r) => r.method === 'POST' && r.body?.type === type).map((r) => r.body as Record<string, unknown>);
  }

  /**
   * Signs `activity` as `from` and POSTs it to the instance's inbox at `instanceOrigin` (exact
   * bytes and headers, Host included, over node:http). Returns the HTTP status.
   */
  async send(instanceOrigin: string, from: FakeActor, activity: Record<string, unknown>, options: SendOptions = {}): Promise<number> {
    const target = new URL(options.path ?? '/inbox', instanceOrigin);
    const raw = JSON.stringify(activity);
    const headers: Record<string, string> = { 'content-type': 'application/activity+json', accept: 'application/activity+json' };
    if (options.badDigest) headers.digest = `SHA-256=${Buffer.from(await crypto.subtle.digest('SHA-256', Buffer.from(`${raw} `))).toString('base64')}`;
    const signer = options.signAs ?? from;
    const signed = await signRequest(new Request(target, { method: 'POST', headers, body: raw }), signer.keys.privateKey, new URL(signer.keyId), {
      spec: options.spec ?? 'draft-cavage-http-signatures-12',
    });
    const out: Record<string, string> = {};
    signed.headers.forEach((v, k) => {
      out[k] = v;
    });
    out.host = target.host;
    out['content-length'] = String(Buffer.byteLength(raw));
    return new Promise((resolve, reject) => {
      const req = request({ host: target.hostname, port: target.port, method: 'POST', path: target.pathname, headers: out }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end(raw);
    });
  }

  /** Stops the server. */
  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Documents shaped as Mastodon (4.x) and Misskey (2024.x) write them, written for these tests from
// the shapes in Mastodon's ActivityPub documentation and what Misskey is known to send.

export const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public';

/** Mastodon's JSON-LD context for actors and statuses (its inline extension terms). */
export const MASTODON_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  {
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    toot: 'http://joinmastodon.org/ns#',
    featured: { '@id': 'toot:featured', '@type': '@id' },
    featuredTags: { '@id': 'toot:featuredTags', '@type': '@id' },
    alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
    movedTo: { '@id': 'as:movedTo', '@type': '@id' },
    schema: 'http://schema.org#',
    PropertyValue: 'schema:PropertyValue',
    value: 'schema:value',
    discoverable: 'toot:discoverable',
    suspended: 'toot:suspended',
    memorial: 'toot:memorial',
    indexable: 'toot:indexable',
    ostatus: 'http://ostatus.org#',
    atomUri: 'ostatus:atomUri',
    inReplyToAtomUri: 'ostatus:inReplyToAtomUri',
    conversation: 'ostatus:conversation',
    sensitive: 'as:sensitive',
    votersCount: 'toot:votersCount',
    blurhash: 'toot:blurhash',
    focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
    Hashtag: 'as:Hashtag',
    Emoji: 'toot:Emoji',
  },
];

/** Misskey's JSON-LD context (security v1 plus its own `misskey:` terms). */
export const MISSKEY_CONTEXT = [
  'https://www.w3.org/ns/activitystreams',
  'https://w3id.org/security/v1',
  {
    Key: 'sec:Key',
    manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
    sensitive: 'as:sensitive',
    Hashtag: 'as:Hashtag',
    quoteUrl: 'as:quoteUrl',
    toot: 'http://joinmastodon.org/ns#',
    Emoji: 'toot:Emoji',
    featured: 'toot:featured',
    discoverable: 'toot:discoverable',
    schema: 'http://schema.org#',
    PropertyValue: 'schema:PropertyValue',
    value: 'schema:value',
    misskey: 'https://misskey-hub.net/ns#',
    _misskey_content: 'misskey:_misskey_content',
    _misskey_quote: 'misskey:_misskey_quote',
    _misskey_reaction: 'misskey:_misskey_reaction',
    _misskey_votes: 'misskey:_misskey_votes',
    _misskey_summary: 'misskey:_misskey_summary',
    isCat: 'misskey:isCat',
    vcard: 'http://www.w3.org/2006/vcard/ns#',
  },
];

/** A Mastodon actor document (Person) for `username` on `server`. */
export function mastodonPerson(server: FakeRemote, a: Omit<FakeActor, 'keys'>, username: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    '@context': MASTODON_CONTEXT,
    id: a.id,
    type: 'Person',
    following: `${a.id}/following`,
    followers: `${a.id}/followers`,
    inbox: a.inbox,
    outbox: `${a.id}/outbox`,
    featured: `${a.id}/collections/featured`,
    featuredTags: `${a.id}/collections/tags`,
    preferredUsername: username,
    name: `${username[0]?.toUpperCase() ?? ''}${username.slice(1)} :blobcat:`,
    summary: `<p>Painting and <a href="${server.url('/tags/art')}" class="mention hashtag" rel="tag">#<span>art</span></a></p>`,
    url: server.url(`/@${username}`),
    manuallyApprovesFollowers: false,
    discoverable: true,
    indexable: true,
    published: '2023-04-01T00:00:00Z',
    memorial: false,
    devices: `${a.id}/collections/devices`,
    alsoKnownAs: [],
    publicKey: { id: a.keyId, owner: a.id, publicKeyPem: a.publicKeyPem },
    tag: [{ id: server.url('/emojis/1'), type: 'Emoji', name: ':blobcat:', updated: '2023-04-01T00:00:00Z', icon: { type: 'Image', mediaType: 'image/png', url: server.url('/system/custom_emojis/blobcat.png') } }],
    attachment: [
      { type: 'PropertyValue', name: 'Website', value: `<a href="https://example.org/${username}" target="_blank" rel="nofollow noopener me" translate="no"><span class="invisible">https://</span><span class="">example.org/${username}</span></a>` },
      { type: 'PropertyValue', name: 'Pronouns', value: 'she/her' },
    ],
    endpoints: { sharedInbox: server.url('/inbox') },
    icon: { type: 'Image', mediaType: 'image/png', url: server.url(`/system/accounts/avatars/${username}.png`) },
    image: { type: 'Image', mediaType: 'image/jpeg', url: server.url(`/system/accounts/headers/${username}.jpg`) },
    ...extra,
  };
}

/** A Misskey actor document: ids in the path, `sharedInbox` both top-level and in `endpoints`, `isCat`. */
export function misskeyPerson(server: FakeRemote, a: Omit<FakeActor, 'keys'>, username: string): Record<string, unknown> {
  return {
    '@context': MISSKEY_CONTEXT,
    type: 'Person',
    id: a.id,
    inbox: a.inbox,
    outbox: `${a.id}/outbox`,
    followers: `${a.id}/followers`,
    following: `${a.id}/following`,
    featured: `${a.id}/collections/featured`,
    sharedInbox: server.url('/inbox'),
    endpoints: { sharedInbox: server.url('/inbox') },
    url: server.url(`/@${username}`),
    preferredUsername: username,
    name: 'Miko',
    summary: '<p><span>nya</span></p>',
    _misskey_summary: 'nya',
    icon: { type: 'Image', url: server.url('/files/avatar.webp'), sensitive: false, name: null },
    image: null,
    tag: [],
    manuallyApprovesFollowers: false,
    discoverable: true,
    publicKey: { id: a.keyId, type: 'Key', owner: a.id, publicKeyPem: a.publicKeyPem },
    isCat: true,
    noindex: false,
    speakAsCat: true,
    attachment: [{ type: 'PropertyValue', name: 'Home', value: '<a href="https://example.org/miko" rel="me nofollow noopener" target="_blank">https://example.org/miko</a>' }],
  };
}
