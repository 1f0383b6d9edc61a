import type { Deps } from '../deps.js';

/** What a durable queue's sender keeps per instance: the rows in flight, and whether a pass runs or is wanted. */
export interface PumpState {
  inFlight: Set<string>;
  pumping: boolean;
  again: boolean;
}

/** A queue's sender: `kick` starts a pass over what is due. */
export interface QueuePump {
  kick(deps: Deps): void;
}

/**
 * The sender of a durable queue (mail, webhooks): `kick` runs `pass` on the next turn of the event
 * loop, off the request that queued something; a kick while a pass runs makes it look again when
 * done, so nothing queued meanwhile waits for the scheduler. State is kept per instance.
 */
export function queuePump(name: string, pass: (deps: Deps, state: PumpState) => void): QueuePump {
  const states = new WeakMap<Deps, PumpState>();
  const stateOf = (deps: Deps): PumpState => {
    let state = states.get(deps);
    if (!state) states.set(deps, (state = { inFlight: new Set(), pumping: false, again: false }));
    return state;
  };
  const kick = (deps: Deps): void => {
    const state = stateOf(deps);
    if (state.pumping) {
      state.again = true;
      return;
    }
    state.pumping = true;
    setImmediate(() => {
      try {
        pass(deps, state);
      } catch (err) {
        console.error(`${name} failed`, err);
      } finally {
        state.pumping = false;
        if (state.again) {
          state.again = false;
          kick(deps);
        }
      }
    });
  };
  return { kick };
}
