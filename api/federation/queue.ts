import type { MessageQueue, MessageQueueDepth, MessageQueueEnqueueOptions, MessageQueueListenOptions } from '@fedify/fedify';
import type { Db } from '../db/connection.js';
import { claimMessages, deleteMessage, enqueueMessage, queueDepth, releaseMessage, type QueueName } from '../db/repos/federation.js';
import { now } from '../util/clock.js';
import { newId } from '../util/ids.js';
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
}

/** Back-off after a failed attempt: 10 s, 20 s, 40 s… capped at six hours. */
export function retryDelayMs(attempts: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, attempts - 1), 6 * 60 * 60 * 1000);
}

/**
 * A durable Fedify message queue on SQLite (table `federation_queue`), one instance per queue
 * name. Messages survive restarts: a message is locked while it is handled and deleted only once
 * handled; a crash leaves the lease to expire. A handler that throws is retried with back-off.
 * Fedify re-enqueues failed deliveries itself (with its own delays), which land here too.
 */
export class SqliteMessageQueue implements MessageQueue {
  readonly nativeRetrial = false;
  private readonly pollMs: number;
  private readonly leaseMs: number;
  private readonly concurrency: number;
  private readonly maxAttempts: number;
  private wake: (() => void) | null = null;
  private readonly transform: (message: unknown) => unknown;

  constructor(
    private readonly db: Db,
    private readonly queue: QueueName,
    options: SqliteQueueOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.leaseMs = options.leaseMs ?? 5 * 60 * 1000;
    this.concurrency = options.concurrency ?? 16;
    this.maxAttempts = options.maxAttempts ?? 12;
    this.transform = options.transform ?? ((m) => m);
  }

  /** Stores a message, due after the optional delay, and wakes the worker. */
  enqueue(message: unknown, options?: MessageQueueEnqueueOptions): Promise<void> {
    const at = now();
    enqueueMessage(this.db, {
      id: newId(at),
      queue: this.queue,
      message: JSON.stringify(this.transform(message)),
      ordering_key: options?.orderingKey ?? null,
      next_attempt_at: at + durationMs(options?.delay),
      created_at: at,
    });
    this.wake?.();
    return Promise.resolve();
  }

  /** Stores several messages in one transaction. */
  enqueueMany(messages: readonly unknown[], options?: MessageQueueEnqueueOptions): Promise<void> {
    this.db.transaction(() => {
      for (const m of messages) void this.enqueue(m, options);
    });
    return Promise.resolve();
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
    const inFlight = new Set<Promise<void>>();
    while (!signal?.aborted) {
      const free = this.concurrency - inFlight.size;
      const at = now();
      const rows = free > 0 ? claimMessages(this.db, this.queue, at, at + this.leaseMs, free) : [];
      for (const row of rows) {
        const job = (async () => {
          try {
            const message = JSON.parse(row.message) as unknown;
            await withQueueMessage(message, () => handler(message));
            deleteMessage(this.db, row.id);
          } catch (err) {
            if (row.attempts >= this.maxAttempts) {
              console.error(`federation ${this.queue} message ${row.id} dropped after ${row.attempts} attempts`, err);
              deleteMessage(this.db, row.id);
            } else {
              releaseMessage(this.db, row.id, now() + retryDelayMs(row.attempts), String(err));
            }
          }
        })().finally(() => {
          inFlight.delete(job);
          this.wake?.();
        });
        inFlight.add(job);
      }
      if (signal?.aborted) break;
      // Sleep until a message is enqueued, one finishes, or the poll interval passes.
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.wake = null;
          signal?.removeEventListener('abort', done);
          resolve();
        };
        const timer = setTimeout(done, rows.length === free && free > 0 ? 0 : this.pollMs);
        this.wake = done;
        signal?.addEventListener('abort', done);
      });
    }
    await Promise.allSettled([...inFlight]);
  }
}
