import { createExponentialBackoffPolicy, createFederation, type Federation } from '@fedify/fedify';
import type { RequestHandler } from 'express';
import type { Deps } from '../core/deps.js';
import type { AccountRow } from '../db/repos/accounts.js';
import { kvPurgeExpired } from '../db/repos/federation.js';
import { now } from '../util/clock.js';
import { HEARTH_VERSION } from '../util/version.js';
import { registerDispatchers } from './dispatchers.js';
import { registerFeaturedTagsDispatcher } from './dispatch-featured-tags.js';
import { featuredSyncsSettled } from './featured-sync.js';
import { federationMiddleware, hostMeta } from './express.js';
import { registerInbox } from './inbox.js';
import { resolveRemote, resolveRemoteAccount } from './resolve.js';
import { setRemoteResolver } from '../core/federation/resolver.js';
import { SqliteKvStore } from './kv.js';
import { keepContextsStatic } from './static-contexts.js';
import { reuseParsedKeys } from './key-memo.js';
import { installOutbound } from './outbound.js';
import { withMediaExtras } from './media-extras.js';
import { installRelationOutbound } from './outbound-relations.js';
import { installFeaturedTagOutbound } from './outbound-featured-tags.js';
import { withHashtagActivities } from './inbox-hashtags.js';
import { installMoveOutbound } from './outbound-move.js';
import { installThreadResolution } from './threads.js';
import { warmUpJsonLd } from './warm-up.js';
import { SqliteMessageQueue, type SqliteQueueOptions } from './queue.js';

/** The federation side of an instance: Express middleware and the queue worker. */
export interface HearthFederation {
  readonly federation: Federation<Deps>;
  /** Host-meta, WebFinger, actors, collections and inboxes; mount before the body parsers. */
  readonly middleware: RequestHandler[];
  /** Fetches and stores a remote account by handle or actor URL (signed GET). */
  resolveAccount(handleOrUri: string): Promise<AccountRow | null>;
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
  const queues = {
    inbox: new SqliteMessageQueue(deps.db, 'inbox', queueOptions),
    outbox: new SqliteMessageQueue(deps.db, 'outbox', { transform: (m) => withMediaExtras(deps, m), ...queueOptions }),
    fanout: new SqliteMessageQueue(deps.db, 'fanout', { transform: (m) => withMediaExtras(deps, m), ...queueOptions }),
  };
  const federation = createFederation<Deps>({
    kv: new SqliteKvStore(deps.db),
    queue: queues,
    manuallyStartQueue: true,
    origin,
    allowPrivateAddress: deps.config.federationAllowLoopback,
    firstKnock: 'draft-cavage-http-signatures-12',
    userAgent: { software: `Hearth/${HEARTH_VERSION}`, url: origin },
    // Freshness is checked against our own clock in the middleware (replay tests set it).
    signatureTimeWindow: false,
    // A peer may be down for hours: retries back off from 10 s to at most an hour between
    // attempts, and stop after about 15 hours (Fedify's default gives up after ~17 minutes).
    outboxRetryPolicy: createExponentialBackoffPolicy({ initialDelay: { seconds: 10 }, maxDelay: { hours: 1 }, factor: 2, maxAttempts: 24 }),
  });
  keepContextsStatic(federation as Federation<unknown>);
  reuseParsedKeys(federation as Federation<unknown>);
  registerDispatchers(federation);
  registerFeaturedTagsDispatcher(federation);
  registerInbox(federation);
  setRemoteResolver(deps, (query) => resolveRemote(federation, deps, query));
  const offOutbound = installOutbound(deps, federation);
  const offRelations = installRelationOutbound(deps, federation);
  const offFeaturedTags = installFeaturedTagOutbound(deps, federation);
  const offMove = installMoveOutbound(deps, federation);
  const offThreads = installThreadResolution(deps, federation);
  const unsubscribe = async () => {
    offRelations();
    offFeaturedTags();
    await Promise.all([offOutbound(), offThreads(), offMove()]);
  };
  let controller: AbortController | null = null;
  let workers: Promise<unknown> | null = null;
  let purge: NodeJS.Timeout | null = null;
  let warm: NodeJS.Timeout | null = null;
  return {
    federation,
    middleware: [hostMeta(origin), federationMiddleware(withHashtagActivities(federation), deps, origin, deps.config.maxBodyBytes)],
    resolveAccount: (handleOrUri) => resolveRemoteAccount(federation, deps, handleOrUri),
    start() {
      if (controller) return;
      controller = new AbortController();
      workers = federation.startQueue(deps, { signal: controller.signal }).catch((err: unknown) => console.error('federation queue stopped', err));
      purge = setInterval(() => kvPurgeExpired(deps.db, now()), 10 * 60 * 1000);
      purge.unref();
      warm = setTimeout(() => void warmUpJsonLd(federation, deps, origin), 200);
      warm.unref();
    },
    async stop() {
      await unsubscribe();
      setRemoteResolver(deps, null);
      if (purge) clearInterval(purge);
      if (warm) clearTimeout(warm);
      await featuredSyncsSettled(deps);
      controller?.abort();
      await workers;
      controller = null;
    },
  };
}
