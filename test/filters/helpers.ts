import { expect } from 'vitest';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';

export { postStatus as post } from '../helpers/fixtures.js';

/** Creates a v2 filter through the API (JSON) and returns the Filter entity (expects 200). */
export async function createFilter(client: TestClient, params: Record<string, unknown>): Promise<any> {
  const res = await client.post('/api/v2/filters', { context: ['home'], ...params });
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Number of rows in a table (to show that a refused request wrote nothing). */
export function count(inst: TestInstance, table: string): number {
  return Number(inst.deps.db.query<{ n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0);
}

/** Counts 'filters.changed' events for an account from now on; call `stop()` when done. */
export function countFilterEvents(inst: TestInstance, accountId: string): { readonly count: number; stop(): void } {
  let n = 0;
  const off = inst.deps.events.on('filters.changed', (e) => {
    if (e.accountId === accountId) n++;
  });
  return {
    get count() {
      return n;
    },
    stop: off,
  };
}
