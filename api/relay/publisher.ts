// The public cache publisher (ARCHITECTURE.md, "The relay"): the instance pushes its public
// documents to the relay whenever they change, so that the relay answers peers from its cache while
// the instance is offline. Event listeners mark targets (publisher-events.ts) in a durable queue
// (0073_relay_published.sql); a background loop renders each target's documents from the
// instance's own listener (publisher-targets.ts, publisher-render.ts) and sends those whose bytes
// changed, a few targets at a time. Deliveries wait for `published()` before they leave, so that
// what an activity points at is on the relay first.
import type { Deps } from '../core/deps.js';
import { withRelaxedDurability } from '../db/connection.js';
import { getRelayEnrolment } from '../db/repos/relay.js';
import {
  duePublishTargets,
  finishPublishTarget,
  localAccountIds,
  localPublicStatusIds,
  markPublishTargets,
  nextPublishDueAt,
  postponePublishTarget,
  queueSweepTargets,
  switchPublisherEnrolment,
  type PublishTargetRow,
} from '../db/repos/relay-published.js';
import { backgroundLane } from '../util/background-lane.js';
import { now } from '../util/clock.js';
import type { Publisher } from './index.js';
import type { PublishChannel } from './publish-channel.js';
import { listenForPublicChanges } from './publisher-events.js';
import { CacheWriter, OfflineError } from './publisher-send.js';
import { ACCOUNT_TARGET_KINDS, renderTarget } from './publisher-targets.js';

/** Targets rendered and sent at the same time. */
const CONCURRENCY = 3;

/** How long the loop sleeps with nothing due (it is woken by marks and finished targets). */
const IDLE_MS = 60_000;

/** A target whose media is still being processed is looked at again after this long. */
const LATER_MS = 30_000;

/** Back-off of a target that failed: doubling from the first, up to the last, with jitter. */
const BACKOFF_FIRST_MS = 2_000;
const BACKOFF_MAX_MS = 10 * 60_000;

/** The longest a delivery waits for the cache (a safety net: each publish has its own timeout). */
const PUBLISHED_WAIT_MS = 90_000;

/** How long `stop` waits for targets being published. */
const STOP_WAIT_MS = 5_000;

/** Statuses queued per transaction by the first sweep. */
const SWEEP_BATCH = 1_000;

/** How a target's publication ended. */
type Outcome = { kind: 'done'; later: boolean } | { kind: 'offline' } | { kind: 'failed'; error: Error };

/** A `published()` call waiting for the targets marked before it. */
interface Waiter {
  upTo: number;
  done: () => void;
}

/** The delay before the next try of a target that failed `attempts` times. */
function publishBackoff(attempts: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, attempts - 1));
  return Math.round(ceiling * (0.75 + Math.random() * 0.25));
}

/** See the file comment. */
class CachePublisher implements Publisher {
  private readonly writer: CacheWriter;
  /** Marks not yet written to the queue (written on the next turn, in one transaction). */
  private readonly marks = new Map<string, string | null>();
  private flushQueued = false;
  /** Sequence of marks; `unsettled` holds each marked target's last mark until a pass after it ends. */
  private seq = 0;
  private readonly unsettled = new Map<string, number>();
  private readonly busy = new Map<string, Promise<void>>();
  private waiters: Waiter[] = [];
  private stopped = false;
  private woken = false;
  private wakeUp: (() => void) | null = null;
  private loopDone: Promise<void> = Promise.resolve();
  private unlisten: () => void = () => {};

  constructor(
    private readonly deps: Deps,
    private readonly channel: PublishChannel,
    options: { localUrl: string; origin: string },
  ) {
    this.writer = new CacheWriter(deps.db, channel, options.localUrl, new URL(options.origin).host);
  }

  start(): void {
    const db = this.deps.db;
    const enrolment = getRelayEnrolment(db);
    const identity = enrolment ? `${enrolment.relay_url} ${enrolment.host} ${enrolment.enrolled_at}` : this.deps.uris.base;
    // A first start (or a new relay or tenant): everything public goes, after the changes.
    if (switchPublisherEnrolment(db, identity, now())) queueSweepTargets(db, ['everything'], now());
    // The instance's own documents and the actors are looked at on every start: command-line
    // changes (emojis, aliases, moves) emit no event in this process. Unchanged ones are not sent.
    for (const target of ['instance', 'nodeinfo', 'emojis', ...localAccountIds(db).map((id) => `account:${id}`)]) this.mark(target);
    this.unlisten = listenForPublicChanges(this.deps, (target, payload) => this.mark(target, payload ?? null));
    this.loopDone = this.loop().catch((err: unknown) => {
      if (!this.stopped) console.error('relay: the cache publisher stopped', err);
    });
  }

  /** Marks a target as changed: written to the queue on the next turn, published in the background. */
  mark(target: string, payload: string | null = null): void {
    if (this.stopped) return;
    this.seq += 1;
    this.unsettled.set(target, this.seq);
    this.marks.set(target, payload ?? this.marks.get(target) ?? null);
    if (this.flushQueued) return;
    this.flushQueued = true;
    setImmediate(() => {
      this.flushQueued = false;
      this.flush();
      this.wake();
    });
  }

  /** Writes the marks to the queue (fully durable: a lost mark would be a change never published). */
  private flush(): void {
    if (this.marks.size === 0) return;
    const marks = [...this.marks].map(([target, payload]) => ({ target, payload, priority: 1 }));
    this.marks.clear();
    try {
      markPublishTargets(this.deps.db, marks, now());
    } catch (err) {
      console.error('relay: could not queue public documents for the cache', err);
      // Nothing will publish them now: deliveries must not wait for them.
      for (const m of marks) this.unsettled.delete(m.target);
      this.checkWaiters();
    }
  }

  async published(): Promise<void> {
    if (this.stopped || this.unsettled.size === 0) return;
    const upTo = this.seq;
    // The tunnel is down: nothing can be published, and the delivery waits for the tunnel anyway.
    if (!(await this.channel.whenConnected(0))) return;
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        console.warn(`relay: a delivery waited ${PUBLISHED_WAIT_MS / 1000} s for the public cache and goes without it`);
        resolve();
      }, PUBLISHED_WAIT_MS);
      timer.unref();
      const waiter: Waiter = {
        upTo,
        done: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      this.waiters.push(waiter);
      // Settled (or stopped) while the tunnel was asked about.
      if (this.stopped) this.releaseWaiters();
      else this.checkWaiters();
    });
  }

  /** Lets go the waiters whose targets have all been through a pass. */
  private checkWaiters(): void {
    if (this.waiters.length === 0) return;
    let oldest = Infinity;
    for (const s of this.unsettled.values()) oldest = Math.min(oldest, s);
    const still: Waiter[] = [];
    for (const w of this.waiters) {
      if (w.upTo < oldest) w.done();
      else still.push(w);
    }
    this.waiters = still;
  }

  /** Lets every waiter go (the tunnel is down: deliveries wait for it anyway; or stopping). */
  private releaseWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w.done();
  }

  private wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Sleeps `ms`, or until woken, or until `also` resolves. */
  private sleep(ms: number, also?: Promise<unknown>): Promise<void> {
    if (this.woken || this.stopped) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = done;
      void also?.then(done);
    }).finally(() => {
      this.wakeUp = null;
    });
  }

  private async loop(): Promise<void> {
    const db = this.deps.db;
    while (!this.stopped) {
      this.woken = false;
      await backgroundLane.turn();
      if (this.stopped) return;
      this.flush();
      if (!(await this.channel.whenConnected(0))) {
        // Nothing can be published: deliveries do not wait for the cache (they wait for the tunnel).
        this.releaseWaiters();
        await this.sleep(IDLE_MS, this.channel.whenConnected(IDLE_MS));
        continue;
      }
      if (this.busy.size < CONCURRENCY) {
        for (const row of duePublishTargets(db, now(), [...this.busy.keys()], CONCURRENCY - this.busy.size)) this.launch(row);
      }
      const next = this.busy.size >= CONCURRENCY ? null : nextPublishDueAt(db, [...this.busy.keys()]);
      await this.sleep(next === null ? IDLE_MS : Math.max(0, next - now()));
    }
  }

  private launch(row: PublishTargetRow): void {
    const upTo = this.seq;
    const run = this.process(row)
      .catch((err: unknown): Outcome => (err instanceof OfflineError ? { kind: 'offline' } : { kind: 'failed', error: err as Error }))
      .then((outcome) => this.settle(row, outcome))
      .catch((err: unknown) => {
        if (!this.stopped) console.error(`relay: could not record the publication of ${row.target}`, err);
      })
      .finally(() => {
        this.busy.delete(row.target);
        // Marked again while it was being published: it stays unsettled for the next pass.
        const marked = this.unsettled.get(row.target);
        if (marked !== undefined && marked <= upTo) this.unsettled.delete(row.target);
        this.checkWaiters();
        this.wake();
      });
    this.busy.set(row.target, run);
  }

  /** Renders and sends one target's documents; removes from the relay what the target no longer has. */
  private async process(row: PublishTargetRow): Promise<Outcome> {
    if (row.target === 'everything') {
      await this.sweep();
      return { kind: 'done', later: false };
    }
    const pass = this.writer.pass(row.target);
    await renderTarget(this.deps, row.target, row.payload, pass.sink);
    await pass.removeTheRest();
    return { kind: 'done', later: pass.later };
  }

  /**
   * Records how a pass ended. These writes do not wait for the disk: lost, a target is only
   * published once more.
   */
  private settle(row: PublishTargetRow, outcome: Outcome): void {
    const db = this.deps.db;
    if (!db.raw.open) return;
    switch (outcome.kind) {
      case 'done':
        if (outcome.later) withRelaxedDurability(() => postponePublishTarget(db, row.target, row.version, now() + LATER_MS, null));
        else withRelaxedDurability(() => finishPublishTarget(db, row.target, row.version));
        return;
      case 'offline':
        // Due as it was: sent once the tunnel is back.
        return;
      case 'failed': {
        const attempts = row.attempts + 1;
        const delay = publishBackoff(attempts);
        // A first failure is often the instance closing its listener on the way out: said from the second on.
        if (attempts > 1 && !this.stopped) {
          console.warn(`relay: could not publish ${row.target} to the cache, ${attempts} times now (${outcome.error.message}); trying again in ${Math.round(delay / 1000)} s`);
        }
        withRelaxedDurability(() => postponePublishTarget(db, row.target, row.version, now() + delay, outcome.error.message.slice(0, 500)));
        return;
      }
    }
  }

  /** The first sweep: every public document is queued, after the changes (priority 0). */
  private async sweep(): Promise<void> {
    const db = this.deps.db;
    const targets = ['instance', 'nodeinfo', 'emojis'];
    for (const id of localAccountIds(db)) for (const kind of ACCOUNT_TARGET_KINDS) targets.push(`${kind}:${id}`);
    queueSweepTargets(db, targets, now());
    let after: string | null = null;
    for (;;) {
      const ids = localPublicStatusIds(db, after, SWEEP_BATCH);
      if (ids.length === 0) return;
      queueSweepTargets(db, ids.map((id) => `status:${id}`), now());
      after = ids[ids.length - 1] ?? null;
      await backgroundLane.turn();
    }
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    // Marks reach the queue: they are published after the next start.
    this.flush();
    this.stopped = true;
    this.unlisten();
    this.releaseWaiters();
    this.wake();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([this.loopDone, ...this.busy.values()]),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, STOP_WAIT_MS);
      }),
    ]);
    clearTimeout(timer);
    this.writer.close();
  }
}

/**
 * Starts publishing the instance's public documents to its relay's cache over `channel`:
 * documents are rendered from the instance's listener at `options.localUrl` as peers of
 * `options.origin` get them. Everything public is published on the first start with an enrolment;
 * afterwards what changes, as it changes.
 */
export function startPublisher(deps: Deps, channel: PublishChannel, options: { localUrl: string; origin: string }): Publisher {
  const publisher = new CachePublisher(deps, channel, options);
  publisher.start();
  return publisher;
}
