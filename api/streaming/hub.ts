import type { StreamSessionAuth } from './auth.js';
import { userStreamGetsNotifications, type ChannelName, type ChannelTarget, type PublicChannel } from './channels.js';
import { rebase, type Rebase } from '../util/uris.js';
import type { Outgoing } from './message.js';

/** How a connection writes: a WebSocket or a server-sent events response. */
export interface Transport {
  readonly kind: 'websocket' | 'sse';
  /** Bytes queued for the client and not written to the network yet. */
  bufferedAmount(): number;
  /** Writes one event of one subscription. */
  write(sub: Subscription, message: Outgoing): void;
  /** Keeps the connection alive (ping or comment line); false when the peer stopped answering. */
  heartbeat(): boolean;
  /** Ends the connection (`terminate`: at once, without a closing handshake). */
  close(terminate: boolean): void;
}

/** One connection and its subscriptions. */
export class Session {
  readonly subscriptions = new Map<string, Subscription>();
  closed = false;
  /** Whether a `user` subscription also gets notifications (the token's scopes). */
  readonly userGetsNotifications: boolean;

  constructor(
    readonly auth: StreamSessionAuth,
    readonly transport: Transport,
    /** How events rendered with the hub's URLs are moved to this connection's base; null when they need not be. */
    readonly rebase: Rebase | null = null,
  ) {
    this.userGetsNotifications = userStreamGetsNotifications(auth);
  }
}

/** One stream a connection follows. */
export interface Subscription {
  readonly session: Session;
  readonly target: ChannelTarget;
  /** JSON of the stream name array, as each WebSocket event repeats it. */
  readonly streamJson: string;
}

/** Subscriptions grouped by a key (an account, a list, a hashtag). */
class Index {
  private readonly map = new Map<string, Set<Subscription>>();

  add(key: string, sub: Subscription): void {
    let set = this.map.get(key);
    if (!set) {
      set = new Set();
      this.map.set(key, set);
    }
    set.add(sub);
  }

  remove(key: string, sub: Subscription): void {
    const set = this.map.get(key);
    if (!set) return;
    set.delete(sub);
    if (set.size === 0) this.map.delete(key);
  }

  get(key: string): ReadonlySet<Subscription> | undefined {
    return this.map.get(key);
  }

  keys(): string[] {
    return [...this.map.keys()];
  }

  get size(): number {
    return this.map.size;
  }
}

/** A client whose unsent data passes this many bytes is dropped instead of buffering without bound. */
export const DEFAULT_MAX_BUFFERED_BYTES = 1024 * 1024;
/** WebSocket ping period (Mastodon: 30 s); a client that did not answer the previous ping is dropped. */
export const DEFAULT_WS_PING_MS = 30_000;
/** SSE heartbeat period (Mastodon writes `:thump` every 15 s). */
export const DEFAULT_SSE_HEARTBEAT_MS = 15_000;
/** Subscriptions one connection may hold. */
export const MAX_SUBSCRIPTIONS_PER_SESSION = 100;

function addTo(map: Map<string, Set<Session>>, key: string, session: Session): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(session);
}

function removeFrom(map: Map<string, Set<Session>>, key: string, session: Session): void {
  const set = map.get(key);
  set?.delete(session);
  if (set?.size === 0) map.delete(key);
}

const PUBLIC_CHANNELS: readonly PublicChannel[] = ['public', 'public:media', 'public:local', 'public:local:media', 'public:remote', 'public:remote:media'];

function isPublic(channel: ChannelName): channel is PublicChannel {
  return (PUBLIC_CHANNELS as readonly string[]).includes(channel);
}

/**
 * The live connections of one instance and what they follow, indexed so that an event finds its
 * subscribers without walking every connection: by account (user, notifications, direct), list,
 * hashtag and public timeline, and by token (revoking a token ends its connections).
 */
export class Hub {
  private readonly sessions = new Set<Session>();
  private readonly byToken = new Map<string, Set<Session>>();
  private readonly byAccount = new Map<string, Set<Session>>();
  readonly user = new Index();
  readonly notifications = new Index();
  readonly direct = new Index();
  readonly lists = new Index();
  readonly hashtags = new Index();
  readonly publics = new Map<PublicChannel, Set<Subscription>>(PUBLIC_CHANNELS.map((c) => [c, new Set<Subscription>()]));
  maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES;
  /** Clients dropped for being too slow, since start (for tests and figures). */
  droppedSlow = 0;
  private pingTimer: NodeJS.Timeout | null = null;
  private thumpTimer: NodeJS.Timeout | null = null;

  /**
   * `base` is the URL base events are rendered with (outside any request). A local-only instance
   * publishes URLs at the address each client uses (the HTTPS listener, a TLS proxy): a connection
   * opened at another base gets its events with the URLs moved to it.
   */
  constructor(private readonly base: string | null = null) {
    this.setHeartbeats(DEFAULT_WS_PING_MS, DEFAULT_SSE_HEARTBEAT_MS);
  }

  /** Sets the heartbeat periods (tests shorten them). */
  setHeartbeats(wsPingMs: number, sseHeartbeatMs: number): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.thumpTimer) clearInterval(this.thumpTimer);
    // One timer per transport for all connections (not one per connection): memory per client stays small.
    this.pingTimer = setInterval(() => this.beat('websocket'), wsPingMs).unref();
    this.thumpTimer = setInterval(() => this.beat('sse'), sseHeartbeatMs).unref();
  }

  private beat(kind: Transport['kind']): void {
    for (const session of this.sessions) {
      if (session.transport.kind !== kind) continue;
      if (!session.transport.heartbeat()) this.end(session, true);
    }
  }

  /** Registers a new connection; `base` is the URL base of the address it came to (null: the hub's). */
  open(auth: StreamSessionAuth, transport: Transport, base: string | null = null): Session {
    const session = new Session(auth, transport, base !== null && this.base !== null ? rebase(this.base, base) : null);
    this.sessions.add(session);
    addTo(this.byToken, auth.tokenId, session);
    addTo(this.byAccount, auth.accountId, session);
    return session;
  }

  /** True while any connection is open (events are not even queued otherwise). */
  get active(): boolean {
    return this.sessions.size > 0;
  }

  /** Open connections. */
  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Subscriptions over all connections. */
  get subscriptionCount(): number {
    let n = 0;
    for (const s of this.sessions) n += s.subscriptions.size;
    return n;
  }

  /**
   * Adds a subscription: `exists` when the connection already has it (a repeated subscribe is
   * ignored, as Mastodon does), `limit` when it holds too many.
   */
  subscribe(session: Session, target: ChannelTarget): 'added' | 'exists' | 'limit' {
    if (session.closed) return 'exists';
    if (session.subscriptions.has(target.key)) return 'exists';
    if (session.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_SESSION) return 'limit';
    const sub: Subscription = { session, target, streamJson: JSON.stringify(target.streamName) };
    session.subscriptions.set(target.key, sub);
    this.index(sub, true);
    return 'added';
  }

  /** Removes a subscription by key (nothing happens when there is none). */
  unsubscribe(session: Session, key: string): void {
    const sub = session.subscriptions.get(key);
    if (!sub) return;
    session.subscriptions.delete(key);
    this.index(sub, false);
  }

  private index(sub: Subscription, add: boolean): void {
    const { channel, tag, listId } = sub.target;
    const accountId = sub.session.auth.accountId;
    const apply = (index: Index, key: string) => (add ? index.add(key, sub) : index.remove(key, sub));
    if (channel === 'user') apply(this.user, accountId);
    else if (channel === 'user:notification') apply(this.notifications, accountId);
    else if (channel === 'direct') apply(this.direct, accountId);
    else if (channel === 'list' && listId !== null) apply(this.lists, listId);
    else if ((channel === 'hashtag' || channel === 'hashtag:local') && tag !== null) apply(this.hashtags, tag);
    else if (isPublic(channel)) {
      const set = this.publics.get(channel);
      if (add) set?.add(sub);
      else set?.delete(sub);
    }
  }

  /** Sends one event to one subscription; a client that cannot keep up is dropped. */
  send(sub: Subscription, message: Outgoing): void {
    const session = sub.session;
    if (session.closed) return;
    if (session.transport.bufferedAmount() > this.maxBufferedBytes) {
      this.droppedSlow++;
      this.end(session, true);
      return;
    }
    session.transport.write(sub, message);
  }

  /** Forgets a connection the peer closed (its transport is already gone). */
  forget(session: Session): void {
    if (session.closed) return;
    session.closed = true;
    for (const sub of session.subscriptions.values()) this.index(sub, false);
    session.subscriptions.clear();
    this.sessions.delete(session);
    removeFrom(this.byToken, session.auth.tokenId, session);
    removeFrom(this.byAccount, session.auth.accountId, session);
  }

  /** Ends a connection from the server side. */
  end(session: Session, terminate: boolean): void {
    if (session.closed) return;
    this.forget(session);
    session.transport.close(terminate);
  }

  /** Ends every connection of a revoked token. */
  endToken(tokenId: string): void {
    for (const session of [...(this.byToken.get(tokenId) ?? [])]) this.end(session, false);
  }

  /** The open connections of an account. */
  sessionsOf(accountId: string): Session[] {
    return [...(this.byAccount.get(accountId) ?? [])];
  }

  /** Ends every connection of an account (e.g. it was suspended or its user disabled). */
  endAccount(accountId: string): void {
    for (const session of this.sessionsOf(accountId)) this.end(session, false);
  }

  /** Ends everything and stops the timers (the instance is closing). */
  close(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    if (this.thumpTimer) clearInterval(this.thumpTimer);
    this.pingTimer = null;
    this.thumpTimer = null;
    for (const session of [...this.sessions]) this.end(session, true);
  }
}
