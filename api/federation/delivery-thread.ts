import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { clockOffsetMs, onClockChange } from '../util/clock.js';
import type { SharedFederationSettings } from './options.js';
import type { SqliteQueueOptions } from './queue.js';

/** What the delivery thread is started with (structured-cloned: data only). */
export interface DeliveryThreadData {
  dbFile: string;
  settings: SharedFederationSettings;
  queueOptions: Omit<SqliteQueueOptions, 'transform' | 'onEnqueued'>;
  clockOffsetMs: number;
  /** Scheduling niceness of the thread (0 to 19; higher yields the core to the main thread). */
  nice: number;
}

/** Messages from the main thread to the delivery thread. */
export type ToDeliveryThread = { type: 'wake' } | { type: 'clock'; offsetMs: number } | { type: 'stop' };

/**
 * Deliveries run at niceness 10: under contention for one core the main thread gets about nine
 * tenths of it (the REST API stays quick), and an idle core is the delivery thread's alone.
 */
const DELIVERY_NICE = 19;

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
 * wake-up message saves it the poll interval). It is started on the first delivery, or at start
 * when deliveries are left from a previous run, so an instance that never federates does not pay
 * for a second JavaScript heap.
 */
export class DeliveryThread {
  private worker: Worker | null = null;
  private stopping: Promise<void> | null = null;
  private readonly offClock: () => void;

  constructor(private readonly data: Omit<DeliveryThreadData, 'clockOffsetMs' | 'nice'>) {
    // A test that moves the server's clock moves the delivery thread's too (retries fall due).
    this.offClock = onClockChange((offsetMs) => this.post({ type: 'clock', offsetMs }));
  }

  /** Starts the thread unless it runs (or the instance is stopping). */
  ensure(): void {
    if (this.worker || this.stopping) return;
    const worker = new Worker(workerScript(), {
      workerData: { ...this.data, clockOffsetMs: clockOffsetMs(), nice: DELIVERY_NICE } satisfies DeliveryThreadData,
    });
    worker.on('error', (err) => console.error('delivery thread failed', err));
    // A thread that ended on its own (a crash) is started again by the next delivery; the
    // messages it held come back to the new one when their lease runs out.
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
    });
    this.worker = worker;
  }

  /** The running thread's id (`worker_threads` numbering), or null while none runs. */
  get threadId(): number | null {
    return this.worker?.threadId ?? null;
  }

  /** Tells the thread that deliveries were enqueued, starting it if needed. */
  wake(): void {
    this.ensure();
    this.post({ type: 'wake' });
  }

  /** Lets the thread finish the deliveries in hand, then ends it; resolves once it is gone. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      this.offClock();
      const worker = this.worker;
      if (!worker) return;
      const exited = once(worker, 'exit');
      const stopped = new Promise<void>((resolve) => {
        worker.on('message', (m: { type?: string }) => {
          if (m.type === 'stopped') resolve();
        });
      });
      worker.postMessage({ type: 'stop' } satisfies ToDeliveryThread);
      await Promise.race([stopped, exited]);
      await worker.terminate();
      this.worker = null;
    })();
    return this.stopping;
  }

  private post(message: ToDeliveryThread): void {
    this.worker?.postMessage(message);
  }
}
