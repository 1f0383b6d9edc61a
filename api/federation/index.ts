import { createFederation, type Federation } from '@fedify/fedify';
import type { RequestHandler } from 'express';
import type { Deps } from '../core/deps.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { knowsRemoteAccounts, kvPurgeExpired, nextQueueClaimAt } from '../db/repos/federation.js';
import { makeDeliveriesDue } from '../db/repos/relay.js';
import { now } from '../util/clock.js';
import { registerDispatchers } from './dispatchers.js';
import { registerFeaturedTagsDispatcher } from './dispatch-featured-tags.js';
import { featuredSyncsSettled } from './featured-sync.js';
import { federationHandler, hostMeta, type FederationInput } from './express.js';
import { registerInbox } from './inbox.js';
import { resolveRemote, resolveRemoteAccount } from './resolve.js';
import { setRemoteResolver } from '../core/federation/resolver.js';
import { isFederationPaused } from '../core/federation/pause.js';
import { prepareInstanceActorKeys } from '../core/federation/local.js';
import { kvStoreFor } from './kv.js';
import { shareFetchedDocuments } from './loader.js';
import { keepContextsStatic } from './static-contexts.js';
import { reuseParsedKeys } from './key-memo.js';
import { reuseParsedActivities } from './activity-memo.js';
import { installOutbound } from './outbound.js';
import { withMediaExtras } from './media-extras.js';
import { installRelationOutbound } from './outbound-relations.js';
import { installFeaturedTagOutbound } from './outbound-featured-tags.js';
import { withHashtagActivities } from './inbox-hashtags.js';
import { installMoveOutbound } from './outbound-move.js';
import { installThreadResolution } from './threads.js';
import { installQuoteFederation, registerQuoteDispatchers } from './quotes-outbound.js';
import { warmUpJsonLd } from './warm-up.js';
import { SqliteMessageQueue, type SqliteQueueOptions } from './queue.js';
import { DeliveryThread } from './delivery-thread.js';
import { cryptoOnThisThread } from './thread-crypto.js';
import { sharedFederationOptions } from './options.js';

/** The federation side of an instance: Express middleware and the queue worker. */
export interface HearthFederation {
  readonly federation: Federation<Deps>;
  /** Host-meta, WebFinger, actors, collections and inboxes; mount before the body parsers. */
  readonly middleware: RequestHandler[];
  /** Delivers a stored inbox request in-process, fresh by `receivedAt` (see FederationHandler.deliver). */
  deliver(input: FederationInput, receivedAt: number): Promise<Response>;
  /** Fetches and stores a remote account by handle or actor URL (signed GET). */
  resolveAccount(handleOrUri: string): Promise<AccountRow | null>;
  /**
   * Sends the delivery thread's requests through `egress` (the relay's tunnel, held by this
   * thread), or directly again with null. This thread's own requests use the process's `fetch`.
   */
  routeDeliveriesThrough(egress: ((request: Request) => Promise<Response>) | null): void;
  /** Makes delayed deliveries due now and starts their worker (the relay tunnel is back). */
  retryDeliveriesNow(): void;
  /** The delivery thread's id while it runs (see DeliveryThread), else null. */
  readonly deliveryThreadId: number | null;
  /** Starts the queue workers (inbox, outbox, fanout). */
  start(): void;
  /** Stops the workers and waits for messages in hand; the database may be closed after. */
  stop(): Promise<void>;
}

/**
 * Wires Fedify for an instance with a public origin: key-value store and durable queues on our
 * SQLite database, dispatchers, inbox listeners and delivery of local actions. Outgoing requests
 * are signed draft-cavage first (RFC 9421 on a second knock), name Hearth and the origin in their
 * User-Agent, and reach private or loopback addresses only under `federationAllowLoopback`.
 */
export function createHearthFederation(deps: Deps, origin: string, queueOptions: SqliteQueueOptions = {}): HearthFederation {
  const settings = { origin, allowPrivateAddress: deps.config.federationAllowLoopback };
  // Deliveries run on their own thread when the database is a file it can open too (always, but
  // for an in-memory database, whose outbox is then worked here).
  const dbFile = deps.db.raw.memory ? null : deps.db.raw.name;
  const { pollMs, leaseMs, concurrency, maxAttempts } = queueOptions;
  const delivery = dbFile === null ? null : new DeliveryThread({ dbFile, settings, queueOptions: { pollMs, leaseMs, concurrency, maxAttempts } });
  let started = false;
  const queues = {
    inbox: new SqliteMessageQueue(deps.db, 'inbox', queueOptions),
    outbox: new SqliteMessageQueue(deps.db, 'outbox', {
      transform: (m) => withMediaExtras(deps, m),
      ...queueOptions,
      onEnqueued: () => {
        if (started) delivery?.wake();
      },
    }),
    fanout: new SqliteMessageQueue(deps.db, 'fanout', { transform: (m) => withMediaExtras(deps, m), ...queueOptions }),
  };
  const kv = kvStoreFor(deps.db);
  const federation = createFederation<Deps>({ ...sharedFederationOptions(settings), kv, queue: queues });
  // Digests and signature checks of inbound requests: microseconds, not worth the pool.
  cryptoOnThisThread({ verify: true, digest: true });
  keepContextsStatic(federation as Federation<unknown>);
  reuseParsedKeys(federation as Federation<unknown>);
  reuseParsedActivities(federation as Federation<unknown>);
  shareFetchedDocuments(federation as Federation<unknown>, kv);
  registerDispatchers(federation);
  registerFeaturedTagsDispatcher(federation);
  registerQuoteDispatchers(federation);
  registerInbox(federation);
  setRemoteResolver(deps, (query) => resolveRemote(federation, deps, query));
  const offOutbound = installOutbound(deps, federation);
  const offRelations = installRelationOutbound(deps, federation);
  const offFeaturedTags = installFeaturedTagOutbound(deps, federation);
  const offMove = installMoveOutbound(deps, federation);
  const offThreads = installThreadResolution(deps, federation);
  const offQuotes = installQuoteFederation(deps, federation);
  // Paused federation holds the delivery thread (core/federation/pause.ts); changes apply in order.
  let pauseChanges: Promise<void> = Promise.resolve();
  const applyPause = (paused: boolean) => {
    pauseChanges = pauseChanges
      .then(async () => {
        if (!delivery) return;
        if (paused) await delivery.hold();
        // Before start, start() itself looks at the queue.
        else delivery.release(started ? nextQueueClaimAt(deps.db, 'outbox') : null);
      })
      .catch((err: unknown) => console.error('could not pause or resume deliveries', err));
  };
  // With an in-memory database (never the app's) the outbox is worked on this thread and is not held.
  if (isFederationPaused(deps)) applyPause(true);
  const offPause = deps.events.on('federation.paused', ({ paused }) => applyPause(paused));
  const unsubscribe = async () => {
    offPause();
    offRelations();
    offFeaturedTags();
    await Promise.all([offOutbound(), offThreads(), offMove(), offQuotes()]);
  };
  let controller: AbortController | null = null;
  let workers: Promise<unknown> | null = null;
  let purge: NodeJS.Timeout | null = null;
  let warm: NodeJS.Timeout | null = null;
  const handler = federationHandler(withHashtagActivities(federation), deps, origin, deps.config.maxBodyBytes);
  return {
    federation,
    middleware: [hostMeta(origin), handler.middleware],
    deliver: handler.deliver,
    resolveAccount: (handleOrUri) => resolveRemoteAccount(federation, deps, handleOrUri),
    routeDeliveriesThrough(egress) {
      delivery?.routeThrough(egress);
    },
    retryDeliveriesNow() {
      if (makeDeliveriesDue(deps.db, now()) === 0 || !started) return;
      if (delivery) delivery.wake();
      else queues.outbox.wakeUp();
    },
    get deliveryThreadId() {
      return delivery?.threadId ?? null;
    },
    start() {
      if (controller) return;
      controller = new AbortController();
      started = true;
      const signal = controller.signal;
      const names = delivery ? (['inbox', 'fanout'] as const) : (['inbox', 'fanout', 'outbox'] as const);
      workers = Promise.all(names.map((queue) => federation.startQueue(deps, { signal, queue }))).catch((err: unknown) =>
        console.error('federation queue stopped', err),
      );
      // Deliveries left from the previous run start the thread when they fall due, new ones when
      // they are enqueued. An instance that knows remote accounts will likely deliver soon (the
      // owner opening the app to post): its thread starts now, so that a post does not wait for
      // it to load, and it ends again if nothing comes for a while (see DeliveryThread).
      const next = delivery ? nextQueueClaimAt(deps.db, 'outbox') : null;
      if (next !== null) delivery?.ensureBy(next);
      else if (delivery && knowsRemoteAccounts(deps.db)) delivery.ensure();
      purge = setInterval(() => kvPurgeExpired(deps.db, now()), 10 * 60 * 1000);
      purge.unref();
      warm = setTimeout(() => {
        void warmUpJsonLd(federation, deps, origin);
        prepareInstanceActorKeys(deps).catch((err: unknown) => console.error('could not make the instance actor keys', err));
      }, 200);
      warm.unref();
    },
    async stop() {
      await unsubscribe();
      setRemoteResolver(deps, null);
      if (purge) clearInterval(purge);
      if (warm) clearTimeout(warm);
      await featuredSyncsSettled(deps);
      await pauseChanges;
      controller?.abort();
      await workers;
      // The fanout worker may have enqueued deliveries until now; the thread finishes those in hand.
      await delivery?.stop();
      controller = null;
    },
  };
}
