import type { Db } from '../db/connection.js';
import { markApplied, wasApplied } from '../db/repos/relay.js';
import type { FederationInput } from '../federation/express.js';
import { groupCommitFor } from '../federation/group-commit.js';
import { now } from '../util/clock.js';
import type { ToRelay } from '../../relay/protocol.js';

/** HEARTH_DEBUG_RELAY=1 logs every replayed message and its outcome (for debugging replays). */
const debug = process.env.HEARTH_DEBUG_RELAY === '1' ? (...args: unknown[]) => console.log('relay receiver:', ...args) : null;

/** Replayed messages handled at once: enough to overlap key fetches, few enough to keep the order close. */
const AT_ONCE = 4;

/** How long a message whose sender's key could not be fetched waits before the relay sends it again. */
const DEFER_MS = 60_000;

/** A stored delivery the relay replays. */
export interface Replayed {
  seq: number;
  receivedAt: number;
  input: FederationInput;
}

/** Where replayed deliveries go and where acknowledgements come back. */
export interface ReplayTarget {
  db: Db;
  /** The relay host (tenant) the messages are for: sequence numbers are per host. */
  host: string;
  deliver(input: FederationInput, receivedAt: number): Promise<Response>;
  reply(frame: ToRelay): void;
}

/**
 * The instance's side of the replay. Each delivery the relay stored is handed to the federation
 * exactly as it arrived at the relay, its signature verified again here (its freshness judged by
 * the relay's receipt time); the acknowledgement goes back only once Fedify has put the activity
 * on the inbox queue, durably, or refused it for good. A message applied before (its
 * acknowledgement was lost) is acknowledged again without being applied twice; one whose
 * sender's key could not be fetched now is deferred, not dropped.
 */
export class ReplayReceiver {
  private running = 0;
  private readonly waiting: Replayed[] = [];
  /**
   * Messages taken and not answered yet: after a reconnection the relay sends again what it had
   * not heard about, and such a copy is answered with the first rather than applied beside it.
   */
  private readonly taken = new Set<number>();

  constructor(private readonly target: ReplayTarget) {}

  /** Takes a message from the relay. */
  receive(message: Replayed): void {
    debug?.('received', message.seq, { running: this.running, waiting: this.waiting.length });
    if (this.taken.has(message.seq)) return;
    this.taken.add(message.seq);
    this.waiting.push(message);
    this.next();
  }

  /** Answers a message on the current connection (earlier copies' connections are gone), and forgets it. */
  private answer(seq: number, frame: ToRelay): void {
    this.taken.delete(seq);
    this.target.reply(frame);
  }

  private next(): void {
    while (this.running < AT_ONCE && this.waiting.length > 0) {
      const message = this.waiting.shift() as Replayed;
      this.running += 1;
      void this.apply(message)
        .catch((err: unknown) => {
          console.error(`relay: replayed message ${message.seq} failed`, err);
          this.answer(message.seq, { t: 'defer', seq: message.seq, retryInMs: DEFER_MS, reason: String(err).slice(0, 200) });
        })
        .finally(() => {
          this.running -= 1;
          this.next();
        });
    }
  }

  private async apply(message: Replayed): Promise<void> {
    const { db, host } = this.target;
    if (wasApplied(db, host, message.seq)) {
      this.answer(message.seq, { t: 'ack', seq: message.seq, applied: true, status: 202 });
      return;
    }
    const response = await this.target.deliver(message.input, message.receivedAt);
    await response.arrayBuffer().catch(() => null);
    if (response.status === 503 || response.status === 500) {
      // The sender's key could not be fetched (or something here failed): the relay keeps it.
      this.answer(message.seq, { t: 'defer', seq: message.seq, retryInMs: DEFER_MS, reason: `answered ${response.status}` });
      return;
    }
    const applied = response.status >= 200 && response.status < 300;
    debug?.('delivered', message.seq, response.status);
    // Not waiting for the disk: lost in a power cut, the replay that follows is caught by Fedify's
    // idempotency record of the activity, written since.
    if (applied) await groupCommitFor(db).write(() => markApplied(db, host, message.seq, now()), { durable: false });
    this.answer(message.seq, { t: 'ack', seq: message.seq, applied, status: response.status });
  }
}
