import type { MessageQueue, MessageQueueDepth, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';
import { withRelaxedDurability, type Db } from '../db/connection.js';
import { claimMessages, deleteMessage, enqueueMessage, queueDepth, releaseMessage, type QueueName } from '../db/repos/federation.js';
import { backgroundLane } from '../util/background-lane.js';
import { now } from '../util/clock.js';
import { newId } from '../util/ids.js';
import { groupCommitFor, type GroupCommit } from './group-commit.js';
import { durationMs } from './kv.js';
import { withQueueMessage } from './received.js';

/** Tuning of the SQLite queue; tests shorten the intervals. */
export interface SqliteQueueOptions {
  /** How often an idle worker looks for due messages. */
  pollMs?: number;
  /** How long a claimed message stays locked before another worker may take it. */
  leaseMs?: number;
  /** Messages handled at the same time by one worker. */
  concurrency?: number;
  /** Attempts before a message that keeps failing is dropped. */
  maxAttempts?: number;
  /** Rewrites a message before it is stored (outgoing attachments gain blurhash and focal point). */
  transform?: (message: unknown) => unknown;
  /** Called after each enqueue has committed: tells a worker in another thread to look now. */
  onEnqueued?: () => void;
  /** Runs a message's handler (the delivery thread makes each outbox message an attempt of its own). */
  around?: (message: unknown, handle: () => Promise<void>) => Promise<void>;
}

/**
 * Messages handled at once, per queue. Inbox and outbox handlers may wait on remote servers
 * (fetches without a short timeout), so enough run at once that a few hung peers do not stall the
 * rest. A fanout message (one activity, thousands of recipients) is local CPU work that enqueues
 * the deliveries: a few at once are plenty, and more would only hold up REST requests.
 */
const CONCURRENCY: Record<QueueName, number> = {
  inbox: 16,
  outbox: 16,
  fanout: 4,
};

/** Back-off after a failed attempt: 10 s, 20 s, 40 s… capped at six hours. */
export function retryDelayMs(attempts: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, attempts - 1), 6 * 60 * 60 * 1000);
}

/**
 * A durable Fedify message queue on SQLite (table `federation_queue`), one instance per queue
 * name. Messages survive restarts: a message is locked while it is handled and deleted only once
 * handled; a crash leaves the lease to expire. A handler that throws is retried with back-off.
 * Fedify re-enqueues failed deliveries itself (with its own delays), which land here too.
 * Writes share the database's group commit (see GroupCommit): enqueues resolve once on disk, and
 * the deletes of handled messages are committed with the next claim, so that a busy queue costs a
 * commit per batch rather than several per message. A message is deleted only after its handler
 * finished, so a crash in between hands it out again (handlers are idempotent), never loses it.
 */
export class SqliteMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private wake: (() => void) | null = null;
  /** Handlers running (of `listen`, which Fedify calls once per queue). */
  private readonly inFlight = new Set<Promise<void>>();
  private readonly transform: (message: unknown) => unknown;
  private readonly gc: GroupCommit;
  private readonly onEnqueued: () => void;
  private readonly around: NonNullable<SqliteQueueOptions['around']>;

  constructor(
    private readonly db: Db,
    private readonly queue: QueueName,
    options: SqliteQueueOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.leaseMs = options.leaseMs ?? 5 * 60 * 1000;
    this.concurrency = options.concurrency ?? CONCURRENCY[queue];
    this.maxAttempts = options.maxAttempts ?? 12;
    this.transform = options.transform ?? ((m) => m);
    this.gc = groupCommitFor(db);
    this.onEnqueued = options.onEnqueued ?? (() => {});
    this.around = options.around ?? ((_message, handle) => handle());
  }

  /** Messages being handled by `listen` at this moment. */
  get handling(): number {
    return this.inFlight.size;
  }

  /** Makes an idle `listen` look for due messages now (messages enqueued by another thread). */
  wakeUp(): void {
    this.wake?.();
  }

  /** Stores a message, due after the optional delay; resolves once it is on disk, and wakes the worker. */
  enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    return this.enqueueMany([message], options);
  }

  /** Stores several messages in one commit. */
  async enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    const at = now();
    const rows = messages.map((m) => ({
      id: newId(at),
      queue: this.queue,
      message: JSON.stringify(this.transform(m)),
      ordering_key: options?.orderingKey ?? null,
      next_attempt_at: at + durationMs(options?.delay),
      created_at: at,
    }));
    await this.gc.write(
      () => {
        for (const row of rows) enqueueMessage(this.db, row);
      },
      { durable: true },
    );
    this.wake?.();
    this.onEnqueued();
  }

  /** Counts of queued and due messages. */
  getDepth(): Promise<MessageQueueDepth> {
    const d = queueDepth(this.db, this.queue, now());
    return Promise.resolve({ queued: d.queued, ready: d.ready, delayed: d.queued - d.ready });
  }

  /**
   * Handles due messages until the signal aborts: claims a batch, runs the handler on each
   * (up to `concurrency` at once), deletes what succeeded and reschedules what failed.
   */
  async listen(handler: (message: unknown) => Promise<void> | void, options?: MessageQueueListenOptions): Promise<void> {
    const signal = options?.signal;
    const inFlight = this.inFlight;
    // Ids of the messages being handled here. A lease only guards against a worker that died;
    // when the clock jumps past it (a laptop waking from sleep, a test moving the clock) while a
    // message is still in hand, the claim hands that message out again: it is not run twice.
    const inHand = new Set<string>();
    while (!signal?.aborted) {
      const free = this.concurrency - inFlight.size;
      const at = now();
      // The claim commits together with the deletes and enqueues waiting for the group commit.
      const rows = free > 0 ? (this.gc.flush(() => claimMessages(this.db, this.queue, at, at + this.leaseMs, free)) ?? []) : [];
      // Handlers start one per turn of the event loop, taking turns with the other background
      // work (see BackgroundLane): each start is a millisecond or so of synchronous work (parsing,
      // the handler's writes), and sixteen of them in a row would hold up every REST request
      // that came in meanwhile.
      for (const row of rows) {
        if (inHand.has(row.id)) continue;
        inHand.add(row.id);
        const job = (async () => {
          await backgroundLane.turn();
          let failure: { error: unknown } | null = null;
          try {
            const message = JSON.parse(row.message) as unknown;
            // The handler's own commits need not wait for the disk: this message is deleted only
            // afterwards, so a power cut that loses them brings it back (withRelaxedDurability).
            await withQueueMessage(message, () => withRelaxedDurability(() => this.around(message, async () => handler(message))));
          } catch (error) {
            failure = { error };
          }
          // Only the handler's failure reschedules a message: one handled is never handed out
          // again because its deletion could not be written (it comes back only when its lease runs
          // out, as after a crash).
          if (failure === null) {
            await this.gc.write(() => deleteMessage(this.db, row.id), { durable: false });
          } else if (row.attempts >= this.maxAttempts) {
            console.error(`federation ${this.queue} message ${row.id} dropped after ${row.attempts} attempts`, failure.error);
            await this.gc.write(() => deleteMessage(this.db, row.id), { durable: false });
          } else {
            const error = String(failure.error);
            await this.gc.write(() => releaseMessage(this.db, row.id, now() + retryDelayMs(row.attempts), error), { durable: false });
          }
        })()
          .catch((err: unknown) => console.error(`federation ${this.queue} message ${row.id}: could not record the outcome`, err))
          .finally(() => {
            inHand.delete(row.id);
            inFlight.delete(job);
            this.wake?.();
          });
        inFlight.add(job);
      }
      if (signal?.aborted) break;
      // Sleep until a message is enqueued, one finishes, or the poll interval passes. A wake-up
      // waits for the end of the current turn of the event loop, so that the messages finishing
      // together are replaced by one claim (and one commit) rather than one each.
      await new Promise<void>((resolve) => {
        let woken = false;
        const wake = () => {
          if (woken) return;
          woken = true;
          setImmediate(done);
        };
        const done = () => {
          clearTimeout(timer);
          if (this.wake === wake) this.wake = null;
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, rows.length === free && free > 0 ? 0 : this.pollMs);
        this.wake = wake;
        signal?.addEventListener('abort', done);
      });
    }
    await Promise.allSettled([...inFlight]);
    this.gc.flush();
  }
}
