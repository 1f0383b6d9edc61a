import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kvDelete } from '../../api/db/repos/federation.js';
import { documentCacheKey } from '../../api/federation/loader.js';
import { FakeRemote, MASTODON_CONTEXT, PUBLIC, mastodonPerson, type FakeActor } from './fake-remote.js';
import { startFederated } from './helpers.js';
import { drain } from './replay.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

/**
 * The sender of an inbound activity is stored once and then reused while its record is fresh (the
 * lifetime of a cached actor document): later activities neither fetch nor rewrite it. A stale
 * record is fetched again and refreshed; Update(actor) refreshes at once.
 */
describe('inbound senders: stored once, refreshed when stale', () => {
  let inst: Inst;
  let masto: FakeRemote;
  let mona: FakeActor;
  let seq = 0;
  const actorGets = () => masto.received.filter((r) => r.method === 'GET' && r.path === '/users/mona').length;
  const row = () => inst.deps.db.query<{ display_name: string; last_fetched_at: number }>('SELECT display_name, last_fetched_at FROM accounts WHERE uri = ?').get(mona.id);
  const create = async (text: string) => {
    seq += 1;
    const id = masto.url(`/users/mona/statuses/${seq}`);
    const note = { id, type: 'Note', attributedTo: mona.id, to: [PUBLIC], cc: [`${mona.id}/followers`], content: `<p>${text}</p>`, published: new Date().toISOString() };
    expect(await masto.send(inst.origin, mona, { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: mona.id, to: note.to, cc: note.cc, object: note })).toBe(202);
    await drain(inst);
  };
  const serveName = (name: string) => masto.serve('/users/mona', mastodonPerson(masto, mona, 'mona', { name }));

  beforeAll(async () => {
    inst = await startFederated('127.0.0.2');
    masto = await FakeRemote.start('127.0.0.5');
    mona = await masto.actor('/users/mona', (a) => mastodonPerson(masto, a, 'mona', { name: 'Mona' }));
  });
  afterAll(async () => {
    await inst.close();
    await masto.close();
  });

  it('a new sender is fetched once: the document the signature check fetched serves the listener too', async () => {
    expect(actorGets()).toBe(0);
    await create('zero');
    expect(row()?.display_name).toBe('Mona');
    expect(actorGets()).toBe(1);
  });

  it('a fresh sender is neither fetched again nor rewritten', async () => {
    await create('first');
    expect(row()?.display_name).toBe('Mona');
    const gets = actorGets();
    const stored = row()?.last_fetched_at;
    serveName('Mona, renamed quietly');
    // The document cache would have served the old profile anyway: drop it to prove no fetch happens.
    kvDelete(inst.deps.db, documentCacheKey(mona.id));
    await create('second');
    await create('third');
    expect(actorGets()).toBe(gets);
    expect(row()).toEqual({ display_name: 'Mona', last_fetched_at: stored });
  });

  it('a stale sender is fetched again and refreshed', async () => {
    inst.deps.db.query('UPDATE accounts SET last_fetched_at = last_fetched_at - ? WHERE uri = ?').run(2 * 60 * 60 * 1000, mona.id);
    const gets = actorGets();
    await create('fourth');
    expect(actorGets()).toBeGreaterThan(gets);
    expect(row()?.display_name).toBe('Mona, renamed quietly');
  });

  it('Update(actor) refreshes a fresh sender at once', async () => {
    const person = mastodonPerson(masto, mona, 'mona', { name: 'Mona, announced' });
    masto.serve('/users/mona', person);
    expect(await masto.send(inst.origin, mona, { '@context': MASTODON_CONTEXT, id: masto.url('/users/mona#updates/1'), type: 'Update', actor: mona.id, to: [PUBLIC], object: person })).toBe(202);
    await drain(inst);
    expect(row()?.display_name).toBe('Mona, announced');
  });
});
