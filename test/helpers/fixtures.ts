import { afterAll, beforeAll, expect } from 'vitest';
import type { ConfigInput } from '../../api/config.js';
import { newId } from '../../api/util/ids.js';
import type { TestClient } from './client.js';
import { startInstance, type TestInstance, type TestUser } from './instance.js';

/**
 * Shared test set-up: one instance per describe block, with the users it needs, started in
 * beforeAll and closed in afterAll. Returns a getter (the instance exists only once beforeAll ran):
 *
 *   const env = useInstance(['alice', 'bob']);
 *   it('…', async () => { const { inst, users: { alice } } = env(); … });
 */
export function useInstance<const Name extends string>(
  names: readonly Name[] = [],
  config: ConfigInput = {},
): () => { inst: TestInstance; users: Record<Name, TestUser> } {
  let state: { inst: TestInstance; users: Record<Name, TestUser> } | null = null;
  beforeAll(async () => {
    const inst = await startInstance(config);
    const users = {} as Record<Name, TestUser>;
    // One after the other, so account ids follow the order of `names`.
    for (const name of names) users[name] = await inst.createUser(name);
    state = { inst, users };
  });
  afterAll(async () => {
    await state?.inst.close();
    state = null;
  });
  return () => {
    if (!state) throw new Error('useInstance: the instance is only available inside tests and hooks');
    return state;
  };
}

/** Posts a status through POST /api/v1/statuses and returns the Status entity (expects 200). */
export async function postStatus(client: TestClient, params: Record<string, unknown>, headers?: Record<string, string>): Promise<any> {
  const res = await client.post('/api/v1/statuses', params, headers ? { headers } : {});
  expect(res.status, res.text).toBe(200);
  return res.body;
}

/** Seeds a known remote account (federation creates these; tests put the row directly). */
export function seedRemoteAccount(inst: TestInstance, username: string, domain: string, actorType: 'Person' | 'Group' = 'Person'): string {
  const id = newId();
  const at = Date.now();
  inst.deps.db
    .query(
      `INSERT INTO accounts (id, username, domain, uri, url, actor_type, created_at, updated_at)
       VALUES (@id, @username, @domain, @uri, @url, @actor_type, @at, @at)`,
    )
    .run({ id, username, domain, uri: `https://${domain}/users/${username}`, url: `https://${domain}/@${username}`, actor_type: actorType, at });
  return id;
}
