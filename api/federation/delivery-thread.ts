import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { clockOffsetMs, now, onClockChange } from '../util/clock.js';
import type { SharedFederationSettings } from './options.js';
import type { SqliteQueueOptions } from './queue.js';
import { answerEgress, type EgressReplyMessage, type EgressRequestMessage, type EgressSwitchMessage } from './thread-egress.js';

/** What the delivery thread is started with (structured-cloned: data only). */
export interface DeliveryThreadData {
  dbFile: string;
  settings: SharedFederationSettings;
  queueOptions: Omit<SqliteQueueOptions, 'transform' | 'onEnqueued' | 'around'>;
  clockOffsetMs: number;
  /** How long the thread waits with nothing to deliver before it asks to be ended. */
  idleMs: number;
  /** Scheduling niceness of the thread (0 to 19; higher yields the core to the main thread). */
  nice: number;
  /** Whether the thread's requests are made by the main thread (the instance federates through a relay). */
  egress: boolean;
}

/** Messages from the main thread to the delivery thread. */
export type ToDeliveryThread = { type: 'wake' } | { type: 'clock'; offsetMs: number } | { type: 'stop' } | EgressReplyMessage | EgressSwitchMessage;

/** Messages from the delivery thread: nothing to deliver for `idleMs` (with when the next retry is due), or stopped. */
export type FromDeliveryThread = { type: 'idle'; nextClaimAt: number | null } | { type: 'stopped' } | { type: 'ready' } | EgressRequestMessage;

/**
 * Deliveries run at the lowest priority (niceness 19): under contention for one core the main
 * thread gets nearly all of it (the REST API stays quick; deliveries wait, as they may), and an
 * idle core, or a second one, is the delivery thread's alone.
 */
const DELIVERY_NICE = 19;

/** A delivery thread with nothing to deliver for this long is ended (see retire). */
const IDLE_MS = 2 * 60 * 1000;

/** How long after a crash of the delivery thread a new one is started. */
const RESTART_DELAY_MS = 5000;

/**
 * The compiled worker script. Under the test runner this module is the TypeScript source, which a
 * worker thread cannot load with its imports; the build of the same source is used (`npm test`
 * builds first).
 */
function workerScript(): string {
  const here = fileURLToPath(import.meta.url);
  if (here.endsWith('.js')) return fileURLToPath(new URL('./delivery-worker.js', import.meta.url));
  const built = fileURLToPath(new URL('../../dist/api/federation/delivery-worker.js', import.meta.url));
  if (!existsSync(built)) throw new Error(`the delivery thread needs the build: run npm run build (${built} is missing)`);
  return built;
}

/**
 * The outbox worker of an instance, on its own thread. Fedify's delivery work (importing the
 * signing key, signing, connecting, the circuit breaker's bookkeeping) is a few milliseconds of
 * CPU per inbox; a post to followers on 500 servers is more than a second of it, which on the main
 * thread delays every REST request and streaming event behind it. The thread opens the same
 * SQLite file and takes the outbox messages the main thread enqueues (the queue is the table; a
 * wake-up message saves it the poll interval). It is started when something is to be delivered
 * (and by the instance at start, once it knows remote accounts), and ended after IDLE_MS with
 * nothing to deliver, so an instance that never federates, or not at the moment, does not pay for
 * a second JavaScript heap.
 */
export class DeliveryThread {
  private worker: Worker | null = null;
  private stopping: Promise<void> | null = null;
  /** Set while an idle thread is being ended (see retire). */
  private retiring: Promise<void> | null = null;
  /** Deliveries were enqueued while the thread was being retired: start a new one after. */
  private wokenWhileRetiring = false;
  /** A later start: after a crash, or when a delayed delivery falls due after retirement. */
  private later: NodeJS.Timeout | null = null;
  private readonly offClock: () => void;
  /** Who makes the thread's requests while the instance federates through a relay. */
  private egress: ((request: Request) => Promise<Response>) | null = null;
  /** Federation is paused: no thread runs, whatever is enqueued or falls due (see hold). */
  private held = false;

  constructor(private readonly data: Omit<DeliveryThreadData, 'clockOffsetMs' | 'nice' | 'idleMs' | 'egress'> & { idleMs?: number }) {
    // A test that moves the server's clock moves the delivery thread's too (retries fall due).
    this.offClock = onClockChange((offsetMs) => this.post({ type: 'clock', offsetMs }));
  }

  /** Starts the thread unless it runs (or the instance is stopping). */
  ensure(): void {
    if (this.worker || this.stopping || this.held) return;
    if (this.retiring) {
      this.wokenWhileRetiring = true;
      return;
    }
    this.cancelLater();
    const worker = new Worker(workerScript(), {
      workerData: { ...this.data, clockOffsetMs: clockOffsetMs(), nice: DELIVERY_NICE, idleMs: this.data.idleMs ?? IDLE_MS, egress: this.egress !== null } satisfies DeliveryThreadData,
    });
    worker.on('error', (err) => console.error('delivery thread failed', err));
    worker.on('message', (m: FromDeliveryThread) => {
      if (m.type === 'idle') this.retire(worker, m.nextClaimAt);
      else if (m.type === 'egress') {
        const egress = this.egress;
        if (egress) void answerEgress(worker, m, egress);
        else worker.postMessage({ type: 'egress-result', id: m.id, error: 'fetch failed: no relay to send through' } satisfies EgressReplyMessage);
      }
    });
    // A thread that ended on its own (a crash) is started again a little later, not at once
    // (a thread that cannot start would otherwise be started again at every delivery); the
    // messages it held come back to the new one when their lease runs out.
    worker.on('exit', () => {
      if (this.worker !== worker || this.retiring) return;
      this.worker = null;
      if (!this.stopping) this.startLater(RESTART_DELAY_MS);
    });
    this.worker = worker;
  }

  /** Starts the thread when a delivery falls due at `at` (server clock), at once if it is due. */
  ensureBy(at: number): void {
    if (at <= now()) this.ensure();
    else if (!this.worker) this.startLater(at - now());
  }

  /** The running thread's id (`worker_threads` numbering), or null while none runs. */
  get threadId(): number | null {
    return this.worker?.threadId ?? null;
  }

  /**
   * Makes the thread's requests go through `egress` on this thread (the relay's tunnel), or
   * directly again with null. A thread started later gets the setting from the start.
   */
  routeThrough(egress: ((request: Request) => Promise<Response>) | null): void {
    this.egress = egress;
    this.post({ type: 'egress-switch', on: egress !== null });
  }

  /** Tells the thread that deliveries were enqueued, starting it if needed. */
  wake(): void {
    this.ensure();
    this.post({ type: 'wake' });
  }

  /**
   * Holds every delivery (federation is paused): the running thread finishes the deliveries in
   * hand and ends, and none starts again (for new deliveries, retries falling due or after a
   * crash) until `release`. The queue keeps the rest; resolves once no thread runs.
   */
  async hold(): Promise<void> {
    this.held = true;
    this.cancelLater();
    await this.retiring;
    const worker = this.worker;
    if (!worker || this.stopping) return;
    // Marked as retiring meanwhile, so that its exit is not taken for a crash to recover from.
    this.retiring = (async () => {
      await endThread(worker);
      if (this.worker === worker) this.worker = null;
      this.retiring = null;
      // Released meanwhile: the deliveries that came start a thread now.
      if (this.wokenWhileRetiring && !this.stopping) {
        this.wokenWhileRetiring = false;
        this.ensure();
      }
    })();
    await this.retiring;
  }

  /** Ends a hold: the thread starts when the next delivery falls due at `nextAt` (server clock; null: none waits). */
  release(nextAt: number | null): void {
    if (!this.held) return;
    this.held = false;
    if (nextAt !== null) this.ensureBy(nextAt);
  }

  /** Lets the thread finish the deliveries in hand, then ends it; resolves once it is gone. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.offClock();
      this.cancelLater();
      await this.retiring;
      const worker = this.worker;
      if (!worker) return;
      await endThread(worker);
      this.worker = null;
    })();
    return this.stopping;
  }

  /**
   * Ends a thread that found nothing to deliver for a while (its heap and Fedify's code are
   * tens of MiB); the next delivery starts a new one, as does the next retry falling due.
   */
  private retire(worker: Worker, nextClaimAt: number | null): void {
    if (this.worker !== worker || this.retiring || this.stopping) return;
    this.retiring = (async () => {
      await endThread(worker);
      this.worker = null;
      this.retiring = null;
      if (this.stopping) return;
      if (this.wokenWhileRetiring) {
        this.wokenWhileRetiring = false;
        this.ensure();
      } else if (nextClaimAt !== null) {
        this.startLater(nextClaimAt - now());
      }
    })();
  }

  private startLater(delayMs: number): void {
    this.cancelLater();
    // setTimeout takes at most 2^31 - 1 ms; a retry further out is looked at again then.
    this.later = setTimeout(() => {
      this.later = null;
      this.ensure();
    }, Math.min(Math.max(0, delayMs), 2 ** 31 - 1));
    this.later.unref();
  }

  private cancelLater(): void {
    if (this.later) clearTimeout(this.later);
    this.later = null;
  }

  private post(message: ToDeliveryThread): void {
    this.worker?.postMessage(message);
  }
}

/** Asks a thread to finish what it holds and close its database, then ends it. */
async function endThread(worker: Worker): Promise<void> {
  const exited = once(worker, 'exit');
  const stopped = new Promise<void>((resolve) => {
    worker.on('message', (m: FromDeliveryThread) => {
      if (m.type === 'stopped') resolve();
    });
  });
  worker.postMessage({ type: 'stop' } satisfies ToDeliveryThread);
  await Promise.race([stopped, exited]);
  await worker.terminate();
}
