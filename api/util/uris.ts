import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Every URL the instance publishes is built here, from one base: the public origin, or, when the
 * instance is local-only, the address each request came to (see UrisScope). Federation publishes
 * these same URLs, so with a public origin they never change once an account or status exists.
 */
export interface Uris {
  /** `https://kim.example`, no trailing slash. */
  readonly base: string;
  /** The instance's domain as it appears in handles (`kim.example`, or `127.0.0.1:7470` local-only). */
  readonly domain: string;
  /** Absolute URL for a path on this instance. */
  url(path: string): string;
  /** ActivityPub id of a local actor. */
  accountUri(username: string): string;
  /** Profile page of a local account. */
  accountUrl(username: string): string;
  /** ActivityPub id of a local status. */
  statusUri(username: string, statusId: string): string;
  /** Web page of a local status. */
  statusUrl(username: string, statusId: string): string;
  /** Public URL of a stored file (media, avatars, emojis) by its storage key. */
  fileUrl(key: string): string;
  /** Tag page. */
  tagUrl(name: string): string;
  /** An account's statuses with a tag (a featured tag's page); `domain` null for local accounts. */
  accountTagUrl(username: string, domain: string | null, tag: string): string;
  /** A local actor's personal inbox. */
  inboxUri(username: string): string;
  /** A local actor's outbox. */
  outboxUri(username: string): string;
  /** A local actor's followers collection. */
  followersUri(username: string): string;
  /** A local actor's following collection. */
  followingUri(username: string): string;
  /** A local actor's featured (pinned statuses) collection. */
  featuredUri(username: string): string;
  /** A local actor's featured tags collection. */
  featuredTagsUri(username: string): string;
  /** The shared inbox of the instance. */
  sharedInboxUri(): string;
  /** The id of a local actor's signing key (`<actor>#main-key`). */
  keyId(username: string): string;
  /** The instance actor (signs fetches and instance-level activities). */
  instanceActorUri(): string;
  /** How remote media not stored here is shown: by its remote URL (`cache`) or through the proxy. */
  readonly remoteMedia: 'cache' | 'proxy';
  /** A remote attachment through the media proxy (Mastodon's `/media_proxy/<id>/<style>`). */
  mediaProxyUrl(mediaId: string, style: 'original' | 'small'): string;
  /** A remote account's avatar or header through the media proxy. */
  accountImageProxyUrl(accountId: string, kind: 'avatar' | 'header'): string;
  /** A remote custom emoji through the media proxy. */
  emojiProxyUrl(emojiId: string): string;
}

/** The identifier of the instance actor in actor paths; never a valid local username (it has a dot). */
export const INSTANCE_ACTOR_IDENTIFIER = 'instance.actor';

/**
 * Builds the URL helpers for a base such as `https://kim.example` or `http://127.0.0.1:7470`;
 * `remoteMedia` is the instance's remote media setting (default `cache`).
 */
export function createUris(base: string, options: { remoteMedia?: 'cache' | 'proxy' } = {}): Uris {
  const clean = base.replace(/\/+$/, '');
  const parsed = new URL(clean);
  const domain = parsed.host;
  const url = (path: string) => `${clean}${path.startsWith('/') ? path : `/${path}`}`;
  return {
    base: clean,
    domain,
    url,
    accountUri: (username) => url(`/users/${encodeURIComponent(username)}`),
    accountUrl: (username) => url(`/@${encodeURIComponent(username)}`),
    statusUri: (username, statusId) => url(`/users/${encodeURIComponent(username)}/statuses/${statusId}`),
    statusUrl: (username, statusId) => url(`/@${encodeURIComponent(username)}/${statusId}`),
    fileUrl: (key) => url(`/system/${key.split('/').map(encodeURIComponent).join('/')}`),
    tagUrl: (name) => url(`/tags/${encodeURIComponent(name)}`),
    accountTagUrl: (username, domain, tag) =>
      url(`/@${encodeURIComponent(username)}${domain === null ? '' : `@${encodeURIComponent(domain)}`}/tagged/${encodeURIComponent(tag)}`),
    inboxUri: (username) => url(`/users/${encodeURIComponent(username)}/inbox`),
    outboxUri: (username) => url(`/users/${encodeURIComponent(username)}/outbox`),
    followersUri: (username) => url(`/users/${encodeURIComponent(username)}/followers`),
    followingUri: (username) => url(`/users/${encodeURIComponent(username)}/following`),
    featuredUri: (username) => url(`/users/${encodeURIComponent(username)}/collections/featured`),
    featuredTagsUri: (username) => url(`/users/${encodeURIComponent(username)}/collections/tags`),
    sharedInboxUri: () => url('/inbox'),
    keyId: (username) => `${url(`/users/${encodeURIComponent(username)}`)}#main-key`,
    instanceActorUri: () => url(`/users/${INSTANCE_ACTOR_IDENTIFIER}`),
    remoteMedia: options.remoteMedia ?? 'cache',
    mediaProxyUrl: (mediaId, style) => url(`/media_proxy/${encodeURIComponent(mediaId)}/${style}`),
    accountImageProxyUrl: (accountId, kind) => url(`/media_proxy/accounts/${encodeURIComponent(accountId)}/${kind}`),
    emojiProxyUrl: (emojiId) => url(`/media_proxy/emojis/${encodeURIComponent(emojiId)}`),
  };
}

/** Bases remembered by a UrisScope at most (Host names are allow-listed, but `*` accepts any). */
const MAX_SCOPED_BASES = 64;

/**
 * The URL base of a local-only instance, which has no identity of its own to publish: while a
 * request is served, the URLs follow the address the client used (scheme and host, as
 * http/middleware/request-base.ts reads them), so that a client behind a TLS proxy or on the
 * HTTPS listener is never sent elsewhere; outside any request (timed jobs, the streaming
 * fan-out) they use the listen address. An instance with a public origin never enters a scope.
 */
export class UrisScope {
  private readonly store = new AsyncLocalStorage<Uris>();
  private readonly byBase = new Map<string, Uris>();
  private home: Uris;

  constructor(
    base: string,
    private readonly options: { remoteMedia?: 'cache' | 'proxy' } = {},
  ) {
    this.home = createUris(base, options);
  }

  /** The URL helpers in force: the current request's, else the listen address's. */
  get current(): Uris {
    return this.store.getStore() ?? this.home;
  }

  /** The URL helpers used outside requests. */
  get fallback(): Uris {
    return this.home;
  }

  /** Sets the base used outside requests (known once the server listens). */
  setFallback(base: string): void {
    this.home = createUris(base, this.options);
    this.byBase.clear();
  }

  /** The URL helpers for a base, made once. */
  at(base: string): Uris {
    if (base === this.home.base) return this.home;
    let uris = this.byBase.get(base);
    if (!uris) {
      if (this.byBase.size >= MAX_SCOPED_BASES) this.byBase.clear();
      uris = createUris(base, this.options);
      this.byBase.set(base, uris);
    }
    return uris;
  }

  /** Runs `fn` (and everything it starts) with URLs built from `base`. */
  run<T>(base: string, fn: () => T): T {
    return this.store.run(this.at(base), fn);
  }
}

/** Rewrites the absolute URLs of one base into another in a text (a rendered JSON event). */
export interface Rebase {
  /** The base URLs are rewritten to. */
  readonly to: string;
  apply(text: string): string;
}

/**
 * How to move a text rendered with URLs of base `from` to base `to`; null when they are the same.
 * Only whole bases are rewritten: `http://127.0.0.1:7470` is not a prefix of `…:74701`.
 */
export function rebase(from: string, to: string): Rebase | null {
  if (from === to) return null;
  const pattern = new RegExp(`${from.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}(?![\\w.:@-])`, 'g');
  return { to, apply: (text) => (text.includes(from) ? text.replace(pattern, () => to) : text) };
}
