// What the relay keeps, and the one interface both storage backends implement: SQLite for a relay
// run by one person for one instance or a family (one process), PostgreSQL for a relay with many
// tenants (several processes sharing the database behind a load balancer). Every method that
// stores something a peer or an instance was told is stored resolves only once it is durable.

/** One instance served by the relay: its public host and tunnel key. */
export interface Tenant {
  id: string;
  /** The host peers reach the instance at (`kim.relay.example`, `kim.example`, `127.0.0.4:8080`), lower case. */
  host: string;
  /** The public origin built from the host (`https://kim.relay.example`). */
  origin: string;
  /** The instance's Ed25519 tunnel key (SPKI DER, base64), once enrolled. */
  publicKey: string | null;
  enrolledAt: number | null;
  createdAt: number;
  /** Bytes of inbound backlog and cached documents the tenant may hold. */
  quotaBytes: number;
  /** Whether the instance asked, at its last login, for its client API to be carried (`--relay-clients`). */
  clients: boolean;
}

/** A tenant with its usage, as `tenant list` shows it. */
export interface TenantUsage extends Tenant {
  backlogCount: number;
  backlogBytes: number;
  cacheBytes: number;
  /** Messages shed over quota so far, by activity type. */
  shed: Record<string, number>;
}

/** An inbox delivery as the relay accepted it. */
export interface InboundMessage {
  receivedAt: number;
  method: string;
  /** Path and query as requested. */
  path: string;
  /** Header pairs as received (names as spelled on the wire). */
  headers: [string, string][];
  body: Buffer;
  /** SHA-256 of the body, hex: repeated bodies within DEDUPE_WINDOW_MS are not stored twice. */
  bodyHash: string;
  /** PRIORITIES: 0 may be shed first, 2 is never shed. */
  priority: number;
  /** The activity's type (`Like`, `Create`…), for shed counts and metrics. */
  activityType: string;
}

/** A stored inbound message waiting for the instance's acknowledgement. */
export interface StoredInbound extends InboundMessage {
  seq: number;
  attempts: number;
}

/** What `accept` did with a delivery. */
export type AcceptOutcome =
  | { kind: 'stored'; seq: number; shed: { seq: number; activityType: string }[] }
  /** The same body was stored within the window: nothing new was written. */
  | { kind: 'duplicate' }
  /** Over quota with nothing of lower priority left to shed: this message itself was shed. */
  | { kind: 'shed' };

/** The tenant's queue as a whole. */
export interface Backlog {
  count: number;
  /** What the messages count for against the quota: body, path and header names and values (`inboundBytes`). */
  bytes: number;
  oldestAt: number | null;
}

/** A document in the public cache. */
export interface CacheEntry {
  /** Path and normalized query the document answers (`/users/kim`, `/.well-known/webfinger?resource=acct:kim@host`). */
  key: string;
  status: 200 | 410;
  contentType: string;
  body: Buffer;
  updatedAt: number;
}

/** A wake-up between relay processes: new inbound mail for a tenant, or a tunnel taken over. */
export type RelaySignal = { kind: 'inbound'; tenantId: string } | { kind: 'tunnel'; tenantId: string; nodeId: string };

/** A relay process, as others can reach it to hand over a live request for a tunnel it holds. */
export interface RelayNode {
  id: string;
  /** Base URL of the process's own listener (`http://10.0.0.5:8080`). */
  url: string;
  seenAt: number;
}

/**
 * The relay's storage. Tenants are isolated: every query about a tenant's queue, cache or counts
 * is keyed by its id, and nothing reads across tenants but `listTenants` and `expire`.
 */
export interface RelayStore {
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';

  /** A value of the relay's own (its actor's key pair, the node secret); null when unset. */
  getMeta(key: string): Promise<string | null>;
  /** Sets a value if none is set yet; resolves to the value that holds afterwards (yours or an earlier one). */
  initMeta(key: string, value: string): Promise<string>;

  /** Adds a tenant with a one-time enrolment code (stored only as its SHA-256 hex); throws `TenantExistsError` for a known host. */
  addTenant(input: { host: string; origin: string; codeHash: string; codeExpiresAt: number; quotaBytes: number; now: number }): Promise<Tenant>;
  /** Gives an existing tenant a new enrolment code (the old key stays valid until the code is used). */
  renewCode(host: string, codeHash: string, codeExpiresAt: number): Promise<boolean>;
  tenantByHost(host: string): Promise<Tenant | null>;
  tenantById(id: string): Promise<Tenant | null>;
  listTenants(): Promise<TenantUsage[]>;
  /** Removes a tenant and everything it holds (queue, cache, counts); false when unknown. */
  removeTenant(host: string): Promise<boolean>;
  setQuota(host: string, quotaBytes: number): Promise<boolean>;
  /** Records whether the tenant wants its client API carried (kept while it is offline). */
  setClients(tenantId: string, clients: boolean): Promise<void>;
  /**
   * Uses an enrolment code: the tenant whose unexpired code has this hash gets the public key,
   * and the code is gone (a second use finds nothing). Null when no such code.
   */
  enrol(codeHash: string, publicKey: string, now: number): Promise<Tenant | null>;

  /**
   * Stores an inbox delivery for a tenant, durably, with the next sequence number; or finds it
   * is a repeat (same body hash received since `dedupeSince`). When the tenant's backlog plus this
   * message would pass `quotaBytes`, stored messages of the same or a lower priority, but never of
   * the highest (PRIORITIES.keep), are shed (lowest priority first, then oldest) until it fits;
   * when that is not enough, a message of the highest priority is stored anyway and any other is
   * shed itself. Everything shed is counted per activity type. All of it is one transaction.
   */
  accept(tenantId: string, message: InboundMessage, limits: { quotaBytes: number; dedupeSince: number }): Promise<AcceptOutcome>;
  /** Unacknowledged messages with `seq > afterSeq`, due by `now`, in sequence order. */
  pending(tenantId: string, afterSeq: number, limit: number, now: number): Promise<StoredInbound[]>;
  /** Forgets acknowledged messages (already gone is fine). */
  ack(tenantId: string, seqs: readonly number[]): Promise<void>;
  /** Puts a message back until `until` (the instance could not take it yet), counting the attempt. */
  defer(tenantId: string, seq: number, until: number): Promise<void>;
  backlog(tenantId: string): Promise<Backlog>;
  /** The tenants that have anything waiting (one cheap query: the backlog counters on the tenant rows). */
  tenantsWithBacklog(): Promise<Set<string>>;
  /** Shed counts of a tenant by activity type. */
  shedCounts(tenantId: string): Promise<Record<string, number>>;
  /**
   * Retention: removes inbound messages received before `before` (counted as shed under the
   * type `expired`) and repeat-detection hashes older than `dedupeBefore`. Returns how many
   * messages were removed.
   */
  expire(before: number, dedupeBefore: number): Promise<number>;

  /** Stores a public document (replacing one under the same key). */
  putCache(tenantId: string, entry: CacheEntry): Promise<void>;
  getCache(tenantId: string, key: string): Promise<CacheEntry | null>;
  dropCache(tenantId: string, key: string): Promise<void>;
  /** Total bytes of a tenant's cached documents. */
  cacheBytes(tenantId: string): Promise<number>;

  /** Records that `nodeId` holds the tenant's tunnel now (a newer holder replaces an older one). */
  claimTunnel(tenantId: string, nodeId: string, now: number): Promise<void>;
  /** Clears the record if `nodeId` still holds it. */
  releaseTunnel(tenantId: string, nodeId: string): Promise<void>;
  /** The node holding the tenant's tunnel, if any. */
  tunnelHolder(tenantId: string): Promise<string | null>;
  /** Registers (or refreshes) this process for the others. */
  heartbeatNode(node: RelayNode): Promise<void>;
  nodeById(id: string): Promise<RelayNode | null>;

  /** Tells every relay process sharing the store (this one too). */
  signal(signal: RelaySignal): Promise<void>;
  /** Calls `listener` for every signal from any process; returns the function that stops listening. */
  onSignal(listener: (signal: RelaySignal) => void): Promise<() => Promise<void>>;

  close(): Promise<void>;
}

/** Thrown by `addTenant` for a host that already has a tenant. */
export class TenantExistsError extends Error {
  constructor(host: string) {
    super(`a tenant with host ${host} exists already`);
    this.name = 'TenantExistsError';
  }
}
