import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../api/cli.js';
import type { TestUser } from '../helpers/instance.js';
import { eventually, startFederated } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;
interface Account { id: string; acct: string; moved?: Account | null }
interface Relationship { id: string; following: boolean; requested: boolean }

describe('a local account moves to an account on another instance', () => {
  let a: Inst;
  let b: Inst;
  let alice: TestUser;
  let dave: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  let aliceOnB: string;

  const relationships = async (user: TestUser, ids: string[]) =>
    (await user.client.get<Relationship[]>(`/api/v1/accounts/relationships?${ids.map((id) => `id[]=${id}`).join('&')}`)).body;

  beforeAll(async () => {
    a = await startFederated('127.0.0.8');
    b = await startFederated('127.0.0.9');
    alice = await a.createUser('alice');
    dave = await a.createUser('dave');
    bob = await b.createUser('bob');
    carol = await b.createUser('carol');
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('alice@A has followers on B (carol) and on A (dave)', async () => {
    const remote = await b.app.federation?.resolveAccount(`alice@${a.domain}`);
    aliceOnB = remote?.id ?? '';
    expect(aliceOnB).not.toBe('');
    expect((await carol.client.post(`/api/v1/accounts/${aliceOnB}/follow`)).status).toBe(200);
    await eventually(async () => (await relationships(carol, [aliceOnB]))[0]?.following);
    expect((await dave.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
  });

  it('bob@B lists alice@A among his aliases (REST on B), published as alsoKnownAs', async () => {
    const res = await bob.client.put('/api/pleroma/aliases', { alias: `alice@${a.domain}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success' });
    expect((await bob.client.get('/api/pleroma/aliases')).body).toEqual({ aliases: [`${a.origin}/users/alice`] });
    const actor = await fetch(`${b.origin}/users/bob`, { headers: { accept: 'application/activity+json' } });
    const doc = (await actor.json()) as { alsoKnownAs?: string | string[] };
    expect([doc.alsoKnownAs].flat()).toEqual([`${a.origin}/users/alice`]);
  });

  it('refuses a move to a remote account that does not alias alice, or that does not exist', async () => {
    const notAliased = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `carol@${b.domain}` });
    expect(notAliased.status).toBe(422);
    expect(notAliased.body.error).toContain('does not list this account as an alias');
    const unknown = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `nobody@${b.domain}` });
    expect(unknown.status).toBe(404);
    expect((await alice.client.get<Account>(`/api/v1/accounts/${alice.accountId}`)).body.moved).toBeUndefined();
  });

  it('alice moves to bob (REST on A): A and B both show her moved, and her followers on both follow bob', async () => {
    const res = await alice.client.post('/api/pleroma/move_account', { password: alice.password, target_account: `bob@${b.domain}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'success' });

    // A: alice points to bob@B; dave (local follower) now follows bob, through a remote Follow and its Accept.
    const onA = await dave.client.get<Account>(`/api/v1/accounts/${alice.accountId}`);
    expect(onA.body.moved?.acct).toBe(`bob@${b.domain}`);
    const bobOnA = onA.body.moved?.id ?? '';
    await eventually(async () => (await relationships(dave, [bobOnA]))[0]?.following);
    expect((await relationships(dave, [alice.accountId]))[0]?.following).toBe(false);

    // B: the Move arrived; carol follows bob instead of alice, and alice shows `moved` to bob.
    await eventually(async () => {
      const [toAlice, toBob] = await relationships(carol, [aliceOnB, bob.accountId]);
      return toBob?.following === true && toAlice?.following === false;
    });
    const onB = await eventually(async () => {
      const shown = await carol.client.get<Account>(`/api/v1/accounts/${aliceOnB}`);
      return shown.body.moved ? shown.body : null;
    });
    expect(onB.moved?.id).toBe(bob.accountId);
    expect(onB.moved?.acct).toBe('bob');
    const bobFollowers = await bob.client.get<Account[]>(`/api/v1/accounts/${bob.accountId}/followers`);
    expect(bobFollowers.body.map((x) => x.acct).sort()).toEqual(['carol', `dave@${a.domain}`].sort());
    // And it stays so once later deliveries (the Update of alice's actor) are processed too.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await carol.client.get<Account>(`/api/v1/accounts/${aliceOnB}`)).body.moved?.id).toBe(bob.accountId);

    // A: alice's actor document now names bob as movedTo.
    const doc = (await (await fetch(`${a.origin}/users/alice`, { headers: { accept: 'application/activity+json' } })).json()) as { movedTo?: string };
    expect(doc.movedTo).toBe(`${b.origin}/users/bob`);
  });

  it('CLI on A (with the origin): `hearth account move` sends the Move through the queue the server works', async () => {
    const erin = await a.createUser('erin');
    const frank = await b.createUser('frank');
    const gus = await b.createUser('gus');
    const erinOnB = (await b.app.federation?.resolveAccount(`erin@${a.domain}`))?.id ?? '';
    expect((await frank.client.post(`/api/v1/accounts/${erinOnB}/follow`)).status).toBe(200);
    await eventually(async () => (await relationships(frank, [erinOnB]))[0]?.following);
    expect((await gus.client.put('/api/pleroma/aliases', { alias: `erin@${a.domain}` })).status).toBe(200);

    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined);
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let code: number;
    let errors: string;
    try {
      code = await main(['account', 'move', '--username', 'erin', '--to', `gus@${b.domain}`, '--data', a.dataDir, '--origin', a.origin, '--federation-allow-loopback']);
      errors = err.mock.calls.map((x) => x.join(' ')).join('\n');
    } finally {
      log.mockRestore();
      err.mockRestore();
    }
    expect(errors).toBe('');
    expect(code).toBe(0);
    await eventually(async () => {
      const [toErin, toGus] = await relationships(frank, [erinOnB, gus.accountId]);
      return toGus?.following === true && toErin?.following === false;
    });
    expect((await erin.client.get<Account>(`/api/v1/accounts/${erin.accountId}`)).body.moved?.acct).toBe(`gus@${b.domain}`);
  });
});
