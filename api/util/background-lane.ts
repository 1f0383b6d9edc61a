/**
 * Background work on the main thread (handling queued federation messages, letting inbox
 * deliveries into verification) takes turns with the requests the server answers. Node's event
 * loop reads every connection that has data in one phase and runs every callback queued for the
 * next in another; with a flood of deliveries, each turn of the loop carried a step of many of
 * them, and a REST request that arrived meanwhile waited for all of those steps. Work that asks
 * for a turn here gets one per turn of the event loop, in order of asking: between two grants
 * the loop has read and answered what the clients sent, so a request waits for about one step of
 * background work, not for all of them. When nothing else is going on, a turn costs a few
 * microseconds.
 */
export class BackgroundLane {
  private readonly waiting: (() => void)[] = [];
  private pumping = false;

  /** Resolves at the caller's own turn of the event loop (see the class comment). */
  turn(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiting.push(resolve);
      if (!this.pumping) {
        this.pumping = true;
        setImmediate(this.pump);
      }
    });
  }

  /** Callers waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  // One grant per check phase: an immediate queued while the check phase runs waits for the
  // next turn of the loop, after its poll phase.
  private readonly pump = (): void => {
    this.waiting.shift()?.();
    if (this.waiting.length > 0) setImmediate(this.pump);
    else this.pumping = false;
  };
}

/** Resolves on the next turn of the event loop, after the I/O callbacks that are due. */
export function nextTurn(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

/** The lane of this thread's background work. */
export const backgroundLane = new BackgroundLane();
