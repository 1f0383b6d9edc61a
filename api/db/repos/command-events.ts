import type { Db } from '../connection.js';

/** A row of `command_events` (see 0096_command_events_warnings.sql). */
export interface CommandEventRow {
  id: string;
  name: string;
  payload: string;
}

/** Records an event emitted by a command-line process, for the running server to emit. */
export function insertCommandEvent(db: Db, name: string, payload: string, at: number): void {
  db.query('INSERT INTO command_events (name, payload, created_at) VALUES (@name, @payload, @at)').run({ name, payload, at });
}

/** Takes every recorded event, oldest first, removing them (inside the caller's transaction). */
export function takeCommandEvents(db: Db): CommandEventRow[] {
  const rows = db.query<CommandEventRow>('SELECT id, name, payload FROM command_events ORDER BY id').all();
  if (rows.length > 0) db.query('DELETE FROM command_events WHERE id <= @last_id').run({ last_id: rows[rows.length - 1]?.id });
  return rows;
}
