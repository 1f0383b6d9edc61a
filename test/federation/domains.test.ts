import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import type { TestUser } from '../helpers/instance.js';
import { eventually, startFederated } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Status { content: string }

describe('instance domain blocks and the allow list (CLI), inbound and outbound', () => {
  let a: Inst;
  let b: Inst;
  let c: Inst;
  let alice: TestUser;
  let bob: TestUser;
  let aliceOnB = '';
  beforeAll(async () => {
    [a, b, c] = await Promise.all([startFederated('127.0.0.2'), startFederated('127.0.0.3'), startFederated('127.0.0.4')]);
    alice = await a.createUser('alice');
    bob = await b.createUser('bob');
    await c.createUser('carol');
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  const cli = async (...args: string[]) => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      const code = await main(['domain', ...args, '--data', a.dataDir]);
      return { code, out: log.mock.calls.map((x) => x.join(' ')).join('\n') };
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
  };

  it('hearth domain block|list|unblock, and bad input', async () => {
    expect((await cli('block', b.domain)).code).toBe(0);
    expect((await cli('list')).out).toBe(`block\t${b.domain}`);
    expect((await cli('block', 'not a domain!')).code).toBe(1);
    expect((await cli('frobnicate', b.domain)).code).toBe(2);
    expect((await cli('unblock', b.domain)).code).toBe(0);
    expect((await cli('list')).out).toBe('');
  });

  it('a blocked domain gets nothing out and nothing in; unblocking restores both', async () => {
    aliceOnB = (await b.app.federation?.resolveAccount(`${a.origin}/users/alice`))?.id ?? '';
    expect((await bob.client.post(`/api/v1/accounts/${aliceOnB}/follow`)).status).toBe(200);
    await eventually(async () => ((await alice.client.get(`/api/v1/accounts/${alice.accountId}/followers`)).body as unknown[]).length === 1);
    await cli('block', b.domain);
    expect(await a.app.federation?.resolveAccount(`${b.origin}/users/bob`)).toBeNull();
    await alice.client.post('/api/v1/statuses', { status: 'alice while blocked', visibility: 'public' });
    await bob.client.post('/api/v1/statuses', { status: `@alice@${a.domain} hello while blocked`, visibility: 'public' });
    // A delivery from the blocked domain is refused before any key is fetched.
    const refused = await fetch(`${a.origin}/inbox`, { method: 'POST', headers: { 'content-type': 'application/activity+json', signature: `keyId="${b.origin}/users/bob#main-key",headers="date",signature="x"` }, body: JSON.stringify({ actor: `${b.origin}/users/bob`, type: 'Like' }) });
    expect(refused.status).toBe(401);
    await new Promise((r) => setTimeout(r, 1500));
    expect(((await bob.client.get('/api/v1/timelines/home')).body as Status[]).map((s) => s.content).join()).not.toContain('alice while blocked');
    expect(((await alice.client.get('/api/v1/notifications?types[]=mention')).body as unknown[]).length).toBe(0);
    await cli('unblock', b.domain);
    await alice.client.post('/api/v1/statuses', { status: 'after unblock', visibility: 'public' });
    await eventually(async () => ((await bob.client.get('/api/v1/timelines/home')).body as Status[]).some((s) => s.content.includes('after unblock')));
  });

  it('allow-list mode: once a domain is allowed, only allowed domains federate', async () => {
    expect((await cli('allow', c.domain)).code).toBe(0);
    expect(await a.app.federation?.resolveAccount(`${b.origin}/users/bob`)).toBeNull();
    expect((await a.app.federation?.resolveAccount(`${c.origin}/users/carol`))?.uri).toBe(`${c.origin}/users/carol`);
    expect((await cli('disallow', c.domain)).code).toBe(0);
    expect((await a.app.federation?.resolveAccount(`${b.origin}/users/bob`))?.uri).toBe(`${b.origin}/users/bob`);
  });
});
