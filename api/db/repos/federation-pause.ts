import type { Db } from '../connection.js';

/** When federation was paused (ms), or undefined while it runs. */
export function getFederationPausedAt(db: Db): number | undefined {
  return db.query<{ paused_at: number }>('SELECT paused_at FROM federation_pause WHERE id = 1').get()?.paused_at;
}

/** Pauses federation from `at` (keeping an earlier time if it is paused already). */
export function pauseFederationAt(db: Db, at: number): void {
  db.query('INSERT INTO federation_pause (id, paused_at) VALUES (1, ?) ON CONFLICT (id) DO NOTHING').run(at);
}

/** Lets federation run again. */
export function resumeFederation(db: Db): void {
  db.query('DELETE FROM federation_pause WHERE id = 1').run();
}
