// The delivery thread (see delivery-thread.ts): Fedify's outbox queue, run on a worker thread with
// its own SQLite connection, so that signing and sending activities to hundreds of inboxes never
// holds up the REST API on the main thread.
import { parentPort, workerData } from 'node:worker_threads';
import type { DeliveryThreadData, FromDeliveryThread, ToDeliveryThread } from './delivery-thread.js';
import { cryptoOnThisThread, lowerThreadPriority } from './thread-crypto.js';

async function main(port: NonNullable<typeof parentPort>, data: DeliveryThreadData): Promise<void> {
  // Lowered before anything is loaded: compiling Fedify and its dependencies is the thread's
  // first half second of work, and it too should yield to the main thread.
  lowerThreadPriority(data.nice);
  cryptoOnThisThread({ sign: true, verify: true, digest: true });
  const { createFederation } = await import('@fedify/fedify');
  const { openDatabase } = await import('../db/connection.js');
  const { now, setClockOffset } = await import('../util/clock.js');
  const { nextQueueClaimAt } = await import('../db/repos/federation.js');
  const { groupCommitFor } = await import('./group-commit.js');
  const { kvStoreFor } = await import('./kv.js');
  const { sharedFederationOptions } = await import('./options.js');
  const { SqliteMessageQueue } = await import('./queue.js');
  const { DELIVERY_SPEC_PREFIX, DeliveryAttempts, knockTwiceOnlyAfterRefusal, rememberSpecOnSuccess } = await import('./delivery-attempts.js');
  const { installThreadEgress } = await import('./thread-egress.js');
  setClockOffset(data.clockOffsetMs);
  const db = openDatabase(data.dbFile);
  // Installed first, so that the knock rules below wrap it: with a relay, every request leaves
  // through the main thread's tunnel.
  const egress = installThreadEgress(port, data.egress);
  knockTwiceOnlyAfterRefusal();
  const attempts = new DeliveryAttempts(db);
  // Retries that Fedify schedules are enqueued here again; they were rewritten for delivery when
  // first enqueued on the main thread, so they are stored as they are. Each message is handled
  // as one attempt (see DeliveryAttempts): failures logged and recorded, successes clear them.
  const outbox = new SqliteMessageQueue(db, 'outbox', { ...data.queueOptions, around: (message, handle) => attempts.run(message, handle) });
  const federation = createFederation<null>({
    ...sharedFederationOptions(data.settings),
    kv: rememberSpecOnSuccess(kvStoreFor(db)),
    kvPrefixes: { httpMessageSignaturesSpec: DELIVERY_SPEC_PREFIX },
    onOutboxError: attempts.onOutboxError,
    queue: { outbox },
  });
  const controller = new AbortController();
  const listening = federation.startQueue(null, { signal: controller.signal, queue: 'outbox' });
  // Asks to be ended after `idleMs` with nothing in hand and nothing due meanwhile (the main thread
  // starts a thread again for the next delivery, or when the next retry falls due).
  let lastBusy = Date.now();
  const idle = setInterval(() => {
    const next = nextQueueClaimAt(db, 'outbox');
    if (outbox.handling > 0 || (next !== null && next - now() < data.idleMs)) lastBusy = Date.now();
    else if (Date.now() - lastBusy >= data.idleMs) port.postMessage({ type: 'idle', nextClaimAt: next } satisfies FromDeliveryThread);
  }, Math.max(20, Math.floor(data.idleMs / 4)));
  idle.unref();
  port.on('message', (message: ToDeliveryThread) => {
    if (message.type === 'egress-result') {
      egress.settle(message);
    } else if (message.type === 'egress-switch') {
      egress.switch(message.on);
    } else if (message.type === 'wake') {
      lastBusy = Date.now();
      outbox.wakeUp();
    } else if (message.type === 'clock') {
      setClockOffset(message.offsetMs);
    } else if (message.type === 'stop') {
      clearInterval(idle);
      controller.abort();
      // listen() returns once the messages in hand are handled and their outcome is committed.
      void listening
        .catch((err: unknown) => console.error('delivery thread: queue stopped', err))
        .then(async () => {
          const gc = groupCommitFor(db);
          gc.flush();
          // Durable writes (retries Fedify re-enqueued) resolve once their WAL flush is done.
          for (let i = 0; i < 100 && !gc.idle; i++) await new Promise((resolve) => setTimeout(resolve, 20));
          db.close();
          port.postMessage({ type: 'stopped' } satisfies FromDeliveryThread);
        });
    }
  });
  port.postMessage({ type: 'ready' } satisfies FromDeliveryThread);
  await listening.catch((err: unknown) => console.error('delivery thread: queue stopped', err));
}

if (parentPort) void main(parentPort, workerData as DeliveryThreadData);
