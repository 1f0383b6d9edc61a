import type { StoredInbound, RelayStore } from '../store/types.js';

/** Inbound messages sent to an instance and not yet acknowledged, at most. */
export const REPLAY_WINDOW = 32;

/** HEARTH_DEBUG_RELAY=1 logs every message sent and acknowledged (for debugging replays). */
const debug = process.env.HEARTH_DEBUG_RELAY === '1' ? (...args: unknown[]) => console.log('relay replay:', ...args) : null;

/**
 * Acknowledgements are written to the store in batches this often (or this many at once). Each
 * batch is a commit and a flush of the WAL: at an instance's pace (a hundred or two a second) a
 * shorter interval makes a commit of one or two. A message acknowledged and not yet removed is not
 * sent again meanwhile, and one that a crash keeps is applied once all the same.
 */
const ACK_FLUSH_MS = 50;
const ACK_BATCH = 64;

/** What the pump needs of the connection it feeds. */
export interface ReplayTarget {
  /** Sends one stored message to the instance. */
  send(message: StoredInbound): void;
  /** The connection is gone: stop. */
  readonly closed: boolean;
}

/**
 * Replays a tenant's queue to its connected instance: in sequence order, at most REPLAY_WINDOW
 * unacknowledged at a time. The instance acknowledges each message once its own commit holds it
 * (or it refused it for good); only then is it removed here, so a message is sent again after a
 * dropped connection or a crash of either side (the instance applies it once in effect). A
 * message the instance defers is due again later: a rescan from the start of the queue picks it
 * up then, skipping what is in flight.
 */
export class ReplayPump {
  private readonly inFlight = new Map<number, number>();
  /** Acknowledged, removal not yet committed: not to be sent again meanwhile. */
  private readonly acking = new Set<number>();
  private ackBatch: number[] = [];
  private ackTimer: NodeJS.Timeout | null = null;
  /** Highest sequence number sent on this connection. */
  private cursor = 0;
  /** Start the next round from the beginning of the queue (deferred messages fell due). */
  private rescan = false;
  private running = false;
  private again = false;
  private rescanTimer: NodeJS.Timeout | null = null;
  private rescanAt = Infinity;

  constructor(
    private readonly store: RelayStore,
    private readonly tenantId: string,
    private readonly target: ReplayTarget,
    private readonly onAcked: (count: number) => void,
  ) {}

  /** Messages sent and not yet acknowledged. */
  get unacknowledged(): number {
    return this.inFlight.size;
  }

  /** Sends what is due, up to the window; called on login, on new mail, after acknowledgements. */
  pump(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = true;
    void this.fill()
      .catch((err: unknown) => console.error(`relay: replay to tenant ${this.tenantId} failed`, err))
      .finally(() => {
        this.running = false;
        if (this.again && !this.target.closed) {
          this.again = false;
          this.pump();
        }
      });
  }

  private async fill(): Promise<void> {
    let from = this.rescan ? 0 : this.cursor;
    this.rescan = false;
    while (!this.target.closed) {
      let room = REPLAY_WINDOW - this.inFlight.size;
      if (room <= 0) {
        // Stopped in the middle of a rescan: the rest of it comes with the next round.
        if (from < this.cursor) this.rescan = true;
        return;
      }
      // Past the cursor nothing is in hand (but for the odd late acknowledgement from an earlier
      // connection, which the loop steps over), so the room left is enough; a rescan asks for
      // enough to fill the window even if every message in hand comes back again. (Asking for the
      // whole window after each acknowledgement read some 60 messages to send one.)
      const limit = from < this.cursor ? room + this.inFlight.size + this.acking.size : room;
      const rows = await this.store.pending(this.tenantId, from, limit, Date.now());
      debug?.('pending', this.tenantId, { from, room, inFlight: this.inFlight.size, acking: this.acking.size, rows: rows.length, first: rows[0]?.seq });
      if (rows.length === 0 || this.target.closed) return;
      for (const row of rows) {
        // The window is full: this row and the rest wait for the next round (from stays before them).
        if (room === 0) break;
        from = row.seq;
        if (this.inFlight.has(row.seq) || this.acking.has(row.seq)) continue;
        this.inFlight.set(row.seq, Date.now());
        debug?.('send', this.tenantId, row.seq);
        this.cursor = Math.max(this.cursor, row.seq);
        this.target.send(row);
        room -= 1;
      }
    }
  }

  /** The instance holds the message now (or refused it for good): remove it, in a batch. */
  ack(seq: number): void {
    debug?.('ack', this.tenantId, seq, this.inFlight.has(seq) ? 'in flight' : 'not in flight');
    // One not in flight was sent on an earlier connection (or by a relay process since gone) and
    // answered late: the instance holds it all the same, so it is removed too.
    if (!this.inFlight.delete(seq) && this.acking.has(seq)) return;
    this.acking.add(seq);
    this.ackBatch.push(seq);
    if (this.ackBatch.length >= ACK_BATCH) this.flushAcks();
    else this.ackTimer ??= setTimeout(() => this.flushAcks(), ACK_FLUSH_MS);
    this.pump();
  }

  /** The instance cannot take the message yet: it is due again after `retryInMs`. */
  defer(seq: number, retryInMs: number): void {
    if (!this.inFlight.delete(seq)) return;
    const until = Date.now() + Math.min(Math.max(retryInMs, 1000), 60 * 60 * 1000);
    void this.store
      .defer(this.tenantId, seq, until)
      .catch((err: unknown) => console.error(`relay: could not defer message ${seq}`, err))
      .finally(() => {
        this.scheduleRescan(until);
        this.pump();
      });
  }

  private scheduleRescan(at: number): void {
    if (at >= this.rescanAt) return;
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    this.rescanAt = at;
    this.rescanTimer = setTimeout(() => {
      this.rescanTimer = null;
      this.rescanAt = Infinity;
      this.rescan = true;
      this.pump();
    }, Math.max(0, at - Date.now()) + 5);
    this.rescanTimer.unref();
  }

  private flushAcks(): void {
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    const seqs = this.ackBatch;
    this.ackBatch = [];
    if (seqs.length === 0) return;
    void this.store
      .ack(this.tenantId, seqs)
      .then(() => this.onAcked(seqs.length))
      .catch((err: unknown) => console.error('relay: could not record acknowledgements', err))
      .finally(() => {
        // Removed (or, on error, left for a later connection to send again): no longer held back.
        for (const seq of seqs) this.acking.delete(seq);
      });
  }

  /** The connection ended: write the acknowledgements in hand, stop the timers. */
  close(): Promise<void> {
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    const seqs = this.ackBatch;
    this.ackBatch = [];
    if (this.ackTimer) clearTimeout(this.ackTimer);
    this.ackTimer = null;
    return seqs.length ? this.store.ack(this.tenantId, seqs).then(() => this.onAcked(seqs.length)) : Promise.resolve();
  }
}
