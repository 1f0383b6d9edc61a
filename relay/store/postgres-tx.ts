// Transactions on the relay's PostgreSQL pool.
import type { Pool, PoolClient } from 'pg';

/** Errors after which a transaction is simply run again: serialization failure, deadlock. */
const RETRYABLE = new Set(['40001', '40P01']);

/**
 * Runs `fn` in a transaction on one pooled connection and commits; run again (up to five times)
 * when PostgreSQL aborts it for a deadlock or a serialization failure.
 */
export async function transaction<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      try {
        await client.query('ROLLBACK');
      } catch (rollbackError) {
        // The connection itself is broken: the pool must not hand it out again.
        broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
      }
      const code = (err as { code?: string }).code;
      if (code === undefined || !RETRYABLE.has(code) || attempt >= 5) throw err;
    } finally {
      client.release(broken);
    }
  }
}
