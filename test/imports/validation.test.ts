import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { importAndWait, upload } from './helpers.js';

/** Uploading a file that cannot be right is refused with a message saying why, and stores nothing; and who may use imports and exports. */
describe('imports: validation and access', () => {
  let inst: TestInstance;
  let kim: TestUser;
  let lee: TestUser;
  const stored = () => inst.deps.db.query<{ n: number }>('SELECT (SELECT count(*) FROM imports) + (SELECT count(*) FROM import_rows) AS n').get()?.n;

  beforeAll(async () => {
    inst = await startInstance();
    kim = await inst.createUser('kim');
    lee = await inst.createUser('lee');
  });
  afterAll(async () => {
    await inst.close();
  });

  it.each([
    ['following', '', "Validation failed: Data can't be blank"],
    ['following', '\n \n,,\n', 'Validation failed: Data is an empty file'],
    ['following', 'Account address,Show boosts\n"alice,true\n', 'Validation failed: Data is not a valid CSV file: A quoted field is not closed on line 2'],
    ['blocks', 'ali"ce\n', 'Validation failed: Data is not a valid CSV file: A quote appears inside a field that is not quoted on line 1'],
    ['domain_blocks', 'Account address,Show boosts,Notify on new posts,Languages\nalice@example.com,true,false,\n', 'Validation failed: Data does not fit this import type: a blocked_domains.csv file needs the column #domain'],
    ['following', 'https://example.com/users/a/statuses/1\n', 'Validation failed: Data does not fit this import type: on line 1, "https://example.com/users/a/statuses/1" is not an account address (user@domain)'],
    ['mutes', 'Account address,Hide notifications\nalice@example.com,true\n@\n', 'Validation failed: Data does not fit this import type: on line 3, "@" is not an account address (user@domain)'],
    ['lists', 'Friends,alice\n,bob\n', 'Validation failed: Data does not fit this import type: on line 2, the list name is empty'],
    ['domain_blocks', 'fine.example\nnot a domain\n', 'Validation failed: Data does not fit this import type: on line 2, "not a domain" is not a domain'],
    ['bookmarks', '#uri\nftp://example.com/1\n', 'Validation failed: Data does not fit this import type: on line 2, "ftp://example.com/1" is not the address of a post (an http or https URL)'],
  ])('refuses a %s file %j: %s', async (type, csv, message) => {
    const res = csv === '' ? await kim.client.post('/api/hearth/imports', { type }) : await upload(kim.client, type, csv);
    expect(res.status, res.text).toBe(422);
    expect(res.body).toMatchObject({ error: message, details: { data: [{ description: message.replace('Validation failed: Data ', '') }] } });
    expect(stored()).toBe(0);
  });

  it('refuses more than 20,000 rows, an unknown type or mode, and text that is not UTF-8', async () => {
    const big = Array.from({ length: 20_001 }, (_, i) => `user${i}`).join('\n');
    expect((await upload(kim.client, 'blocks', big)).body).toMatchObject({ error: 'Validation failed: Data has more than 20,000 rows' });
    const header = `#domain\n${Array.from({ length: 20_000 }, (_, i) => `d${i}.example`).join('\n')}`;
    const atLimit = await upload(kim.client, 'domain_blocks', header);
    expect(atLimit.status).toBe(202);
    expect(atLimit.body.total).toBe(20_000);
    expect((await kim.client.delete(`/api/hearth/imports/${atLimit.body.id}`)).status).toBe(200);
    const before = stored();
    expect((await upload(kim.client, 'statuses', 'a\n')).body).toMatchObject({ error: 'Validation failed: Type is not included in the list' });
    expect((await kim.client.post('/api/hearth/imports', { data: 'a\n' })).body).toMatchObject({ error: "Validation failed: Type can't be blank" });
    expect((await upload(kim.client, 'blocks', 'a\n', 'replace' as 'merge')).body).toMatchObject({ error: 'Validation failed: Mode is not included in the list' });
    const form = new FormData();
    form.append('type', 'blocks');
    form.append('data', new Blob([new Uint8Array([0x61, 0xff, 0xfe, 0x0a])]), 'blocks.csv');
    expect((await kim.client.post('/api/hearth/imports', undefined, { multipart: form })).body).toMatchObject({ error: 'Validation failed: Data is not a UTF-8 text file' });
    expect(stored()).toBe(before);
  });

  it('takes the file as a JSON string too, and answers 202 with the import', async () => {
    const res = await kim.client.post('/api/hearth/imports', { type: 'domain_blocks', mode: 'merge', data: '#domain\nspam.example\n' });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ type: 'domain_blocks', mode: 'merge', total: 1, processed: 0, imported: 0, failed: 0, finished_at: null });
    expect(['scheduled', 'in_progress', 'finished']).toContain(res.body.state);
    expect(Object.keys(res.body).sort()).toEqual(['created_at', 'failed', 'finished_at', 'id', 'imported', 'mode', 'processed', 'state', 'total', 'type']);
  });

  it('answers 401 without a token and 403 with a token that lacks the scope', async () => {
    for (const [method, path] of [
      ['POST', '/api/hearth/imports'],
      ['GET', '/api/hearth/imports'],
      ['GET', '/api/hearth/imports/1'],
      ['GET', '/api/hearth/imports/1/failures'],
      ['DELETE', '/api/hearth/imports/1'],
      ['GET', '/api/hearth/exports/following_accounts.csv'],
      ['GET', '/api/hearth/exports/bookmarks.csv'],
    ] as const) {
      expect((await inst.anon.request(method, path)).status, `${method} ${path}`).toBe(401);
    }
    const readOnly = kim.client.withToken(inst.tokenFor(kim, 'read'));
    expect((await upload(readOnly, 'blocks', 'a\n')).status).toBe(403);
    // A token for bookmarks may import bookmarks, not follows.
    const bookmarksOnly = kim.client.withToken(inst.tokenFor(kim, 'write:bookmarks'));
    const before = stored();
    const refused = await upload(bookmarksOnly, 'following', 'alice\n');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: 'This action is outside the authorized scopes' });
    expect(stored()).toBe(before);
    expect((await upload(bookmarksOnly, 'bookmarks', `${inst.url}/users/kim/statuses/1\n`)).status).toBe(202);
    const readBookmarks = kim.client.withToken(inst.tokenFor(kim, 'read:bookmarks'));
    expect((await readBookmarks.get('/api/hearth/exports/following_accounts.csv')).status).toBe(403);
    expect((await readBookmarks.get('/api/hearth/exports/bookmarks.csv')).status).toBe(200);
    expect((await readBookmarks.get('/api/hearth/imports')).status).toBe(200);
  });

  it("shows each person only their own imports, newest first, and one's failures", async () => {
    const done = await importAndWait(lee.client, 'blocks', 'kim\nnobody_here\n');
    expect(done).toMatchObject({ total: 2, imported: 1, failed: 1 });
    expect((await lee.client.get(`/api/hearth/imports/${done.id}/failures`)).body).toEqual([
      { line: 2, value: 'nobody_here', reason: 'account_not_found', message: 'There is no account @nobody_here on this instance' },
    ]);
    expect((await kim.client.get(`/api/hearth/imports/${done.id}`)).status).toBe(404);
    expect((await kim.client.get(`/api/hearth/imports/${done.id}/failures`)).status).toBe(404);
    expect((await kim.client.delete(`/api/hearth/imports/${done.id}`)).status).toBe(404);
    const mine = (await kim.client.get('/api/hearth/imports')).body as { id: string; created_at: string }[];
    expect(mine.length).toBeGreaterThanOrEqual(3);
    expect(mine.map((i) => i.id)).not.toContain(done.id);
    expect([...mine.map((i) => BigInt(i.id))]).toEqual([...mine.map((i) => BigInt(i.id))].sort((x, y) => (x > y ? -1 : 1)));
    // Cancelling what has ended is refused.
    const late = await lee.client.delete(`/api/hearth/imports/${done.id}`);
    expect(late.status).toBe(422);
    expect(late.body).toMatchObject({ error: 'This import has already finished' });
  });
});
