import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { silence } from '../relationships/helpers.js';
import { follow, notificationsOf, post } from './helpers.js';

const DAY = 86_400_000;

/** The notification policy: its entity (v2 and v1), its updates, and what each rule does to notifications. */
describe('notification policy', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let n = 0;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
  });
  afterEach(async () => {
    resetClock();
    // Back to the defaults between tests.
    expect((await alice.client.put('/api/v2/notifications/policy', DEFAULTS)).status).toBe(200);
  });
  afterAll(async () => {
    await inst.close();
  });

  const DEFAULTS = { for_not_following: 'accept', for_not_followers: 'accept', for_new_accounts: 'accept', for_private_mentions: 'filter', for_limited_accounts: 'filter' };
  /** A new user who has done nothing with alice yet. */
  const stranger = () => inst.createUser(`stranger${++n}`);
  const setPolicy = async (changes: Record<string, string>) => {
    const res = await alice.client.patch('/api/v2/notifications/policy', changes);
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  /** Alice's notifications from `sender`: those shown, and those the policy filtered. */
  const from = async (sender: TestUser) => {
    const shown = (await notificationsOf(alice)).filter((x) => x.account.id === sender.accountId);
    const ids = new Set(shown.map((x) => x.id));
    const all = await notificationsOf(alice, `account_id=${sender.accountId}`);
    return { shown: shown.map((x) => x.type), filtered: all.filter((x) => !ids.has(x.id)).map((x) => x.type) };
  };
  const favourite = async (sender: TestUser) => {
    const status = await post(alice, `like me ${++n}`);
    expect((await sender.client.post(`/api/v1/statuses/${status.id}/favourite`)).status).toBe(200);
    return status;
  };

  it('has Mastodon’s defaults, in v2 and v1', async () => {
    const v2 = await alice.client.get('/api/v2/notifications/policy');
    expect(v2.status).toBe(200);
    expect(v2.body).toEqual({ ...DEFAULTS, summary: { pending_requests_count: 0, pending_notifications_count: 0 } });
    const v1 = await alice.client.get('/api/v1/notifications/policy');
    expect(v1.body).toEqual({
      filter_not_following: false,
      filter_not_followers: false,
      filter_new_accounts: false,
      filter_private_mentions: true,
      summary: { pending_requests_count: 0, pending_notifications_count: 0 },
    });
  });

  it('updates the rules given by PATCH or PUT, leaving the others', async () => {
    const patched = await setPolicy({ for_not_following: 'drop', for_new_accounts: 'filter' });
    expect(patched).toMatchObject({ ...DEFAULTS, for_not_following: 'drop', for_new_accounts: 'filter' });
    const put = await alice.client.put('/api/v2/notifications/policy', undefined, { form: { for_private_mentions: 'accept', for_not_followers: '' } });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ for_not_following: 'drop', for_new_accounts: 'filter', for_private_mentions: 'accept', for_not_followers: 'accept' });
    expect((await alice.client.get('/api/v2/notifications/policy')).body).toEqual(put.body);
    // v1 reads a rule that filters or drops as filtering.
    expect((await alice.client.get('/api/v1/notifications/policy')).body).toMatchObject({
      filter_not_following: true,
      filter_not_followers: false,
      filter_new_accounts: true,
      filter_private_mentions: false,
    });
  });

  it('maps the v1 booleans onto the rules (true filters, false accepts) with Rails truthiness', async () => {
    await setPolicy({ for_limited_accounts: 'drop' });
    const res = await alice.client.patch('/api/v1/notifications/policy', undefined, { form: { filter_not_following: 'true', filter_private_mentions: 'f', filter_new_accounts: '1' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ filter_not_following: true, filter_not_followers: false, filter_new_accounts: true, filter_private_mentions: false });
    expect((await alice.client.get('/api/v2/notifications/policy')).body).toMatchObject({
      for_not_following: 'filter',
      for_not_followers: 'accept',
      for_new_accounts: 'filter',
      for_private_mentions: 'accept',
      for_limited_accounts: 'drop',
    });
    const json = await alice.client.put('/api/v1/notifications/policy', { filter_not_following: false, filter_not_followers: true });
    expect(json.body).toMatchObject({ filter_not_following: false, filter_not_followers: true });
  });

  it('refuses an unknown action with 422 and changes nothing', async () => {
    await setPolicy({ for_not_following: 'filter' });
    for (const body of [{ for_not_following: 'accept', for_new_accounts: 'maybe' }, { for_private_mentions: true }, { for_limited_accounts: ['drop'] }]) {
      const res = await alice.client.patch('/api/v2/notifications/policy', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body.error).toMatch(/^Validation failed: for_\w+ is not included in the list$/);
    }
    expect((await alice.client.patch('/api/v1/notifications/policy', { filter_not_following: { a: 1 } })).status).toBe(422);
    expect((await alice.client.get('/api/v2/notifications/policy')).body).toMatchObject({ ...DEFAULTS, for_not_following: 'filter' });
  });

  it('for_not_following: filter holds back what comes from accounts alice does not follow; drop makes nothing', async () => {
    const [followed, other, dropped] = [await stranger(), await stranger(), await stranger()];
    await follow(alice, followed);
    await setPolicy({ for_not_following: 'filter' });
    await favourite(followed);
    await favourite(other);
    await follow(other, alice);
    expect(await from(followed)).toEqual({ shown: ['favourite'], filtered: [] });
    expect(await from(other)).toEqual({ shown: [], filtered: ['follow', 'favourite'] });
    // Favourites and follows open no request: only mentions and quotes do, as in Mastodon.
    expect((await alice.client.get('/api/v1/notifications/requests')).body).toEqual([]);
    await setPolicy({ for_not_following: 'drop' });
    const liked = await favourite(dropped);
    await post(dropped, '@alice hear me');
    expect(await from(dropped)).toEqual({ shown: [], filtered: [] });
    // Dropping the notification does not undo what caused it.
    expect((await alice.client.get(`/api/v1/statuses/${liked.id}`)).body.favourites_count).toBe(1);
  });

  it('for_not_followers: a follower counts only after three days of following', async () => {
    const [fan, nobody] = [await stranger(), await stranger()];
    await follow(fan, alice);
    await setPolicy({ for_not_followers: 'filter' });
    await favourite(fan);
    await favourite(nobody);
    expect(await from(fan)).toEqual({ shown: ['follow'], filtered: ['favourite'] });
    setClockTo(now() + 4 * DAY);
    await favourite(fan);
    await favourite(nobody);
    expect(await from(fan)).toEqual({ shown: ['favourite', 'follow'], filtered: ['favourite'] });
    expect(await from(nobody)).toEqual({ shown: [], filtered: ['favourite', 'favourite'] });
  });

  it('for_new_accounts: accounts younger than 30 days, unless alice follows them', async () => {
    const [young, followed] = [await stranger(), await stranger()];
    await follow(alice, followed);
    await setPolicy({ for_new_accounts: 'filter' });
    await post(young, '@alice hi, I am new');
    await post(followed, '@alice hi, you know me');
    expect(await from(young)).toEqual({ shown: [], filtered: ['mention'] });
    expect(await from(followed)).toEqual({ shown: ['mention'], filtered: [] });
    setClockTo(now() + 31 * DAY);
    await post(young, '@alice a month later');
    expect((await from(young)).shown).toEqual(['mention']);
  });

  it('for_private_mentions: direct mentions from strangers, except answers in a conversation alice started', async () => {
    const [pen, pal] = [await stranger(), await stranger()];
    await follow(alice, pal);
    await post(pen, '@alice in public');
    const secret = await post(pen, '@alice in private', { visibility: 'direct' });
    await post(pal, '@alice a friend writes', { visibility: 'direct' });
    expect(await from(pen)).toEqual({ shown: ['mention'], filtered: ['mention'] });
    expect(await from(pal)).toEqual({ shown: ['mention'], filtered: [] });
    // Alice writes to pen privately; pen's answer down that thread is let through.
    const mine = await post(alice, `@${pen.username} let us talk`, { visibility: 'direct' });
    const answer = await post(pen, '@alice sure', { visibility: 'direct', in_reply_to_id: mine.id });
    const deeper = await post(pen, '@alice and more', { visibility: 'direct', in_reply_to_id: answer.id });
    const shown = (await notificationsOf(alice)).filter((x) => x.account.id === pen.accountId).map((x) => x.status.id);
    expect(shown.slice(0, 2)).toEqual([deeper.id, answer.id]);
    // A reply to pen's own earlier message is not such a conversation.
    await post(pen, '@alice ping', { visibility: 'direct', in_reply_to_id: secret.id });
    expect((await from(pen)).filtered).toEqual(['mention', 'mention']);
    await setPolicy({ for_private_mentions: 'drop' });
    await post(pen, '@alice dropped', { visibility: 'direct' });
    expect((await from(pen)).filtered).toHaveLength(2);
    await setPolicy({ for_private_mentions: 'accept' });
    const accepted = await post(pen, '@alice accepted', { visibility: 'direct' });
    expect((await notificationsOf(alice, `account_id=${pen.accountId}`))[0].status.id).toBe(accepted.id);
    expect((await from(pen)).shown).toHaveLength(4);
  });

  it('for_limited_accounts: accounts a moderator limited, unless alice follows them', async () => {
    const [limited, known] = [await stranger(), await stranger()];
    await follow(alice, known);
    silence(inst, limited.accountId);
    silence(inst, known.accountId);
    await post(limited, '@alice from the sin bin');
    await post(known, '@alice limited but known');
    expect(await from(limited)).toEqual({ shown: [], filtered: ['mention'] });
    expect(await from(known)).toEqual({ shown: ['mention'], filtered: [] });
    await setPolicy({ for_limited_accounts: 'drop' });
    await post(limited, '@alice again');
    expect(await from(limited)).toEqual({ shown: [], filtered: ['mention'] });
  });

  it('never filters the types Mastodon never filters, nor staff writing to a user', async () => {
    await setPolicy({ for_not_following: 'drop', for_not_followers: 'drop', for_new_accounts: 'drop', for_private_mentions: 'drop', for_limited_accounts: 'drop' });
    const author = await stranger();
    const status = await post(author, 'will be edited');
    expect((await alice.client.post(`/api/v1/statuses/${status.id}/reblog`)).status).toBe(200);
    expect((await author.client.put(`/api/v1/statuses/${status.id}`, { status: 'edited' })).status).toBe(200);
    expect(await from(author)).toEqual({ shown: ['update'], filtered: [] });
    // The owner (staff above alice) reaches her, even privately.
    const owner = await inst.createUser('boss', { role: 'owner' });
    await post(owner, '@alice a word from the owner', { visibility: 'direct' });
    expect(await from(owner)).toEqual({ shown: ['mention'], filtered: [] });
    // A user does not reach staff that way.
    const staffPolicy = await owner.client.patch('/api/v2/notifications/policy', { for_private_mentions: 'filter' });
    expect(staffPolicy.status).toBe(200);
    await post(author, `@${owner.username} hello boss`, { visibility: 'direct' });
    expect((await notificationsOf(owner)).filter((x) => x.type === 'mention')).toEqual([]);
  });

  it('checks tokens and scopes', async () => {
    const read = inst.tokenFor(alice, 'read:notifications');
    const write = inst.tokenFor(alice, 'write:notifications');
    for (const path of ['/api/v2/notifications/policy', '/api/v1/notifications/policy']) {
      expect((await inst.anon.get(path)).status, path).toBe(401);
      expect((await alice.client.get(path, { token: write })).status, path).toBe(403);
      expect((await alice.client.get(path, { token: read })).status, path).toBe(200);
      expect((await alice.client.get(path, { token: inst.tokenFor(alice, 'read') })).status, path).toBe(200);
      for (const method of ['patch', 'put'] as const) {
        expect((await inst.anon[method](path, {})).status, `${method} ${path}`).toBe(401);
        expect((await alice.client[method](path, {}, { token: read })).status, `${method} ${path}`).toBe(403);
        expect((await alice.client[method](path, {}, { token: write })).status, `${method} ${path}`).toBe(200);
      }
    }
  });
});
