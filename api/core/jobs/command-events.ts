import type { Db } from '../../db/connection.js';
import { insertCommandEvent, takeCommandEvents } from '../../db/repos/command-events.js';
import { now } from '../../util/clock.js';
import type { Deps } from '../deps.js';
import { Events, type EventMap, type EventName } from '../events.js';

/**
 * Changes made at the command line (`hearth accounts approve`, `hearth reports resolve`, `hearth
 * role assign`…) happen in another process than the server's, whose event bus nobody listens to.
 * Rather than installing the server's listeners there (streaming and push cannot run in a
 * short-lived command), the command records every event it emits in `command_events`, and the
 * running server's scheduler emits them on its own bus (`replayCommandEvents`): staff
 * notifications, mail, webhooks, streaming and federation then follow as for a change made
 * through the API. A command run while no server runs leaves its events for the next start.
 */
export class CommandEvents extends Events {
  constructor(private readonly db: Db) {
    super();
  }

  /** Records the event for the server (listeners in this process, if any, still hear it). */
  override emit<K extends EventName>(name: K, payload: EventMap[K]): void {
    insertCommandEvent(this.db, name, JSON.stringify(payload), now());
    super.emit(name, payload);
  }
}

/**
 * Emits the events command-line processes recorded, oldest first, on the server's bus, and
 * forgets them; returns how many there were. A scheduler task (every second).
 */
export function replayCommandEvents(deps: Deps): number {
  const rows = deps.db.transaction(() => takeCommandEvents(deps.db));
  for (const row of rows) {
    // Written by CommandEvents from a typed emit: the name and payload belong together.
    const payload = JSON.parse(row.payload) as EventMap[EventName];
    deps.events.emit(row.name as EventName, payload);
  }
  return rows.length;
}
