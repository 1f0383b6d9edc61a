import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';
import type { TestResponse } from '../helpers/client.js';
import type { TestUser } from '../helpers/instance.js';
import { FakeRemote, MASTODON_CONTEXT, PUBLIC, mastodonPerson, type FakeActor } from '../federation/fake-remote.js';
import { startFederated } from '../federation/helpers.js';
import { drain } from '../federation/replay.js';
import { form, picture } from '../media/helpers.js';

/**
 * NUL characters are never stored: Mastodon cannot store them (PostgreSQL refuses them and the
 * request fails), and a peer given one chokes on it. The API refuses any parameter holding one,
 * whatever the route and the body's form; text arriving by federation loses them before it is
 * stored.
 */

const NUL = '\u0000';

/** Whether any string in a JSON value holds a NUL (the serialized text escapes it as \u0000). */
function holdsNul(value: unknown): boolean {
  return JSON.stringify(value).includes('\\u0000');
}

function expectRefused(res: TestResponse, parameter: string): void {
  expect(res.status, res.text).toBe(400);
  expect(res.body).toEqual({ error: `Invalid request parameters: ${parameter} contains a null character` });
}

describe('the API refuses parameters holding a NUL character, on every route and in every body form', () => {
  const env = useInstance(['alice', 'bob']);
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(() => {
    ({ alice, bob } = env().users);
  });

  it('status text, content warning and poll options (JSON): 400, and no status is made', async () => {
    expectRefused(await alice.client.post('/api/v1/statuses', { status: `hello${NUL}world` }), 'status');
    expectRefused(await alice.client.post('/api/v1/statuses', { status: 'hello', spoiler_text: `cw${NUL}` }), 'spoiler_text');
    expectRefused(await alice.client.post('/api/v1/statuses', { status: 'poll', poll: { options: ['yes', `n${NUL}o`], expires_in: 3600 } }), 'poll[options][1]');
    const mine = await alice.client.get(`/api/v1/accounts/${alice.accountId}/statuses`);
    expect(mine.body).toEqual([]);
    // The same text without the NUL is fine.
    expect((await alice.client.post('/api/v1/statuses', { status: 'helloworld' })).status).toBe(200);
  });

  it('display name and note (form), profile fields (multipart): 400, and the profile is unchanged', async () => {
    const before = (await alice.client.get('/api/v1/accounts/verify_credentials')).body;
    expectRefused(await alice.client.patch('/api/v1/accounts/update_credentials', undefined, { form: { display_name: `Al${NUL}ice` } }), 'display_name');
    expectRefused(await alice.client.patch('/api/v1/accounts/update_credentials', undefined, { form: { note: `bio${NUL}` } }), 'note');
    const fields = new FormData();
    fields.append('fields_attributes[0][name]', `Web${NUL}site`);
    fields.append('fields_attributes[0][value]', 'https://example.org');
    expectRefused(await alice.client.patch('/api/v1/accounts/update_credentials', undefined, { multipart: fields }), 'fields_attributes[0][name]');
    const after = (await alice.client.get('/api/v1/accounts/verify_credentials')).body;
    expect(after.display_name).toBe(before.display_name);
    expect(after.note).toBe(before.note);
    expect(after.fields).toEqual(before.fields);
    expect(holdsNul(after)).toBe(false);
  });

  it('list title, filter keywords, report comment: 400, and nothing is made', async () => {
    expectRefused(await alice.client.post('/api/v1/lists', { title: `friends${NUL}` }), 'title');
    expect((await alice.client.get('/api/v1/lists')).body).toEqual([]);
    expectRefused(
      await alice.client.post('/api/v2/filters', undefined, { form: { title: 'words', 'context[]': 'home', 'keywords_attributes[][keyword]': `bad${NUL}word` } }),
      'keywords_attributes[0][keyword]',
    );
    expect((await alice.client.get('/api/v2/filters')).body).toEqual([]);
    expectRefused(await alice.client.post('/api/v1/reports', { account_id: bob.accountId, comment: `spam${NUL}` }), 'comment');
    expect(env().inst.deps.db.query('SELECT COUNT(*) AS n FROM reports').get()).toEqual({ n: 0 });
  });

  it('a media description (multipart with a file): 400, and no attachment is made', async () => {
    const png = await picture(16, 16, 'png');
    const res = await alice.client.post('/api/v2/media', undefined, { multipart: form({ file: { data: png, type: 'image/png', name: 'a.png' } }, { description: `a cat${NUL}` }) });
    expectRefused(res, 'description');
    expect(env().inst.deps.db.query('SELECT COUNT(*) AS n FROM media_attachments').get()).toEqual({ n: 0 });
  });

  it('in the query string, a parameter name, and a path segment: 400', async () => {
    expectRefused(await alice.client.get('/api/v2/search?q=cat%00dog'), 'q');
    expectRefused(await alice.client.post('/api/v1/statuses', { status: 'hi', [`x${NUL}`]: '1' }), `x${NUL}`);
    expectRefused(await alice.client.post('/api/v1/tags/cats%00/follow'), 'id');
    expect((await alice.client.get('/api/v1/followed_tags')).body).toEqual([]);
    // However deep a JSON body nests, it is searched (and answered 400, not 500).
    const deep = `{"title":${'['.repeat(50_000)}"x\\u0000"${']'.repeat(50_000)}}`;
    const nested = await alice.client.request('POST', '/api/v1/lists', { raw: { body: deep, type: 'application/json' } });
    expect(nested.status).toBe(400);
    expect(nested.body.error).toMatch(/^Invalid request parameters: title(\[0\])+ contains a null character$/);
    // A JSON body that is only a string is a parameter too.
    expectRefused(await alice.client.request('POST', '/api/v1/lists', { raw: { body: JSON.stringify(`x${NUL}`), type: 'application/json' } }), '(body)');
  });
});

describe('text arriving by federation loses its NUL characters before it is stored', () => {
  type Inst = Awaited<ReturnType<typeof startFederated>>;
  let inst: Inst;
  let remote: FakeRemote;
  let mona: FakeActor;
  let alice: TestUser;

  beforeAll(async () => {
    inst = await startFederated('127.0.0.2');
    remote = await FakeRemote.start('127.0.0.5');
    mona = await remote.actor('/users/mona', (a) =>
      mastodonPerson(remote, a, 'mona', {
        name: `Mo${NUL}na`,
        summary: `<p>Paint${NUL}ing</p>`,
        attachment: [{ type: 'PropertyValue', name: `Web${NUL}site`, value: `mona${NUL}.example` }],
      }),
    );
    alice = await inst.createUser('alice');
  });
  afterAll(async () => {
    await inst.close();
    await remote.close();
  });

  it('a Note (content, content warning, hashtag, attachment description) and its author (name, bio, fields)', async () => {
    const id = remote.url('/users/mona/statuses/1');
    const note = {
      id,
      type: 'Note',
      attributedTo: mona.id,
      published: new Date().toISOString(),
      to: [PUBLIC],
      cc: [`${mona.id}/followers`],
      summary: `warn${NUL}ing`,
      content: `<p>hello${NUL} world <a href="${remote.url('/tags/art')}" class="mention hashtag" rel="tag">#<span>art</span></a></p>`,
      contentMap: { en: `<p>hello${NUL} world</p>` },
      sensitive: true,
      tag: [{ type: 'Hashtag', href: remote.url('/tags/art'), name: '#art' }],
      attachment: [{ type: 'Document', mediaType: 'image/png', url: remote.url('/system/media/1.png'), name: `a picture${NUL} of a cat` }],
    };
    const create = { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: mona.id, published: note.published, to: note.to, cc: note.cc, object: note };
    expect(await remote.send(inst.origin, mona, create)).toBe(202);
    await drain(inst);

    const account = await alice.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`mona@${remote.domain}`)}`);
    expect(account.status).toBe(200);
    expect(holdsNul(account.body)).toBe(false);
    expect(account.body.display_name).toBe('Mona');
    expect(account.body.fields.map((f: { name: string }) => f.name)).toEqual(['Website']);

    const statuses = await alice.client.get(`/api/v1/accounts/${account.body.id}/statuses`);
    expect(statuses.body).toHaveLength(1);
    const status = statuses.body[0];
    expect(holdsNul(status)).toBe(false);
    expect(status.spoiler_text).toBe('warning');
    expect(status.content).toContain('hello world');
    expect(status.media_attachments[0]?.description).toBe('a picture of a cat');

    // And nothing of it in the database: the rows themselves are clean.
    const rows = inst.deps.db
      .query(
        `SELECT (SELECT COUNT(*) FROM statuses WHERE instr(content, char(0)) > 0 OR instr(spoiler_text, char(0)) > 0) +
                (SELECT COUNT(*) FROM accounts WHERE instr(display_name, char(0)) > 0 OR instr(note, char(0)) > 0) AS n`,
      )
      .get();
    expect(rows).toEqual({ n: 0 });
  });

  it('a poll (Question) and a report (Flag)', async () => {
    const id = remote.url('/users/mona/statuses/2');
    const question = {
      id,
      type: 'Question',
      attributedTo: mona.id,
      published: new Date().toISOString(),
      to: [PUBLIC],
      cc: [],
      content: '<p>which?</p>',
      endTime: new Date(Date.now() + 86_400_000).toISOString(),
      oneOf: [
        { type: 'Note', name: `ye${NUL}s`, replies: { type: 'Collection', totalItems: 0 } },
        { type: 'Note', name: 'no', replies: { type: 'Collection', totalItems: 0 } },
      ],
    };
    const create = { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: mona.id, published: question.published, to: question.to, cc: [], object: question };
    expect(await remote.send(inst.origin, mona, create)).toBe(202);
    await drain(inst);
    const lookup = await alice.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`mona@${remote.domain}`)}`);
    const statuses = (await alice.client.get(`/api/v1/accounts/${lookup.body.id}/statuses`)).body as { uri: string; poll: { options: { title: string }[] } | null }[];
    const poll = statuses.find((s) => s.uri === id)?.poll;
    expect(poll?.options.map((o) => o.title)).toEqual(['yes', 'no']);

    const flag = { '@context': 'https://www.w3.org/ns/activitystreams', id: remote.url('/flags/1'), type: 'Flag', actor: mona.id, object: [`${inst.origin}/users/alice`], content: `rude${NUL} words` };
    expect(await remote.send(inst.origin, mona, flag)).toBe(202);
    await drain(inst);
    expect(inst.deps.db.query('SELECT comment FROM reports').all()).toEqual([{ comment: 'rude words' }]);
  });
});
