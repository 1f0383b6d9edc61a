import { beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../api/core/oauth/tokens.js';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import type { TestResponse } from '../helpers/client.js';
import type { TestUser } from '../helpers/instance.js';
import { picture } from '../media/helpers.js';

/**
 * Error texts clients match on are Mastodon's own, word for word: a representative set, each as
 * Mastodon's documentation (docs/methods) gives it for the same request.
 */

function expectError(res: TestResponse, status: number, error: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body.error).toBe(error);
}

describe('error texts are Mastodon’s, word for word', () => {
  const env = useInstance(['alice', 'bob', 'carol']);
  let alice: TestUser;
  let bob: TestUser;
  let carol: TestUser;
  beforeAll(() => {
    ({ alice, bob, carol } = env().users);
  });

  it('tokens and scopes: 401 without a valid token, 403 outside the scopes, 422 for an app token on a user method', async () => {
    const { inst } = env();
    expectError(await inst.anon.get('/api/v1/accounts/verify_credentials'), 401, 'The access token is invalid');
    expectError(await inst.anon.get('/api/v1/accounts/verify_credentials', { token: 'not-a-token' }), 401, 'The access token is invalid');
    const readOnly = inst.tokenFor(alice, 'read');
    expectError(await alice.client.post('/api/v1/statuses', { status: 'hi' }, { token: readOnly }), 403, 'This action is outside the authorized scopes');
    const appToken = issueToken(inst.deps, { applicationId: null, userId: null, scopes: ['read', 'write'] }).accessToken;
    expectError(await inst.anon.get('/api/v1/timelines/home', { token: appToken }), 422, 'This method requires an authenticated user');
  });

  it('404s: a record that is not there, a route that is not there', async () => {
    expectError(await alice.client.get('/api/v1/statuses/123456789'), 404, 'Record not found');
    expectError(await alice.client.get('/api/v1/accounts/123456789'), 404, 'Record not found');
    expectError(await alice.client.get('/api/v1/no/such/method', { skipSchema: true }), 404, 'Record not found');
  });

  it('statuses: blank text, pins', async () => {
    expectError(await alice.client.post('/api/v1/statuses', { status: '' }), 422, "Validation failed: Text can't be blank");
    const own = await postStatus(alice.client, { status: 'mine' });
    expectError(await alice.client.put(`/api/v1/statuses/${own.id}`, { status: '' }), 422, "Validation failed: Text can't be blank");
    const bobs = await postStatus(bob.client, { status: 'bob says' });
    expectError(await alice.client.post(`/api/v1/statuses/${bobs.id}/pin`), 422, "Validation failed: Someone else's post cannot be pinned");
    const direct = await postStatus(alice.client, { status: '@bob psst', visibility: 'direct' });
    expectError(await alice.client.post(`/api/v1/statuses/${direct.id}/pin`), 422, 'Validation failed: Posts that are only visible to mentioned users cannot be pinned');
    for (let i = 0; i < 5; i++) {
      const s = await postStatus(alice.client, { status: `pin ${i}` });
      expect((await alice.client.post(`/api/v1/statuses/${s.id}/pin`)).status).toBe(200);
    }
    expectError(await alice.client.post(`/api/v1/statuses/${own.id}/pin`), 422, 'Validation failed: You have already pinned the maximum number of posts');
  });

  it('polls: voting twice, voting once it has ended', async () => {
    const poll = await postStatus(alice.client, { status: 'which?', poll: { options: ['a', 'b'], expires_in: 3600 } });
    expect((await bob.client.post(`/api/v1/polls/${poll.poll.id}/votes`, { choices: [0] })).status).toBe(200);
    expectError(await bob.client.post(`/api/v1/polls/${poll.poll.id}/votes`, { choices: [1] }), 422, 'Validation failed: You have already voted on this poll');
    env().inst.deps.db.query('UPDATE polls SET expires_at = @at WHERE id = @id').run({ at: Date.now() - 1000, id: poll.poll.id });
    expectError(await carol.client.post(`/api/v1/polls/${poll.poll.id}/votes`, { choices: [1] }), 422, 'Validation failed: The poll has already ended');
  });

  it('accounts: endorsing someone not followed; domain blocks', async () => {
    expectError(await alice.client.post(`/api/v1/accounts/${carol.accountId}/endorse`), 422, 'Validation failed: You must be already following the person you want to endorse');
    expectError(await alice.client.post('/api/v1/domain_blocks', { domain: '' }), 422, "Validation failed: Domain can't be blank");
    expectError(await alice.client.post('/api/v1/domain_blocks', { domain: 'not a domain' }), 422, 'Validation failed: Domain is not a valid domain name');
    expectError(await alice.client.request('DELETE', '/api/v1/domain_blocks', { json: { domain: '' } }), 422, "Validation failed: Domain can't be blank");
  });

  it('lists: a blank title, an unknown replies policy, a member twice', async () => {
    expectError(await alice.client.post('/api/v1/lists', { title: '' }), 422, "Validation failed: Title can't be blank");
    expectError(await alice.client.post('/api/v1/lists', { title: 'x', replies_policy: 'some' }), 422, "'some' is not a valid replies_policy");
    expect((await alice.client.post(`/api/v1/accounts/${bob.accountId}/follow`)).status).toBe(200);
    const list = await alice.client.post('/api/v1/lists', { title: 'friends' });
    expect((await alice.client.post(`/api/v1/lists/${list.body.id}/accounts`, { account_ids: [bob.accountId] })).status).toBe(200);
    expectError(await alice.client.post(`/api/v1/lists/${list.body.id}/accounts`, { account_ids: [bob.accountId] }), 422, 'Validation failed: Account has already been taken');
  });

  it('filters: v2 without title or context, a blank keyword; v1 without phrase or context', async () => {
    expectError(await alice.client.post('/api/v2/filters', {}), 422, "Validation failed: Title can't be blank, Context can't be blank, Context None or invalid context supplied");
    const filter = await alice.client.post('/api/v2/filters', { title: 'f', context: ['home'] });
    expect(filter.status).toBe(200);
    expectError(await alice.client.post(`/api/v2/filters/${filter.body.id}/keywords`, { keyword: '' }), 422, "Validation failed: Keyword can't be blank");
    expectError(await alice.client.post('/api/v1/filters', { context: ['home'] }), 422, "Validation failed: Phrase can't be blank");
    expectError(await alice.client.post('/api/v1/filters', { phrase: 'x' }), 422, "Validation failed: Context can't be blank, Context None or invalid context supplied");
  });

  it('featured tags, scheduled statuses, reports, media', async () => {
    expectError(await alice.client.post('/api/v1/featured_tags', { name: '123' }), 422, 'Validation failed: Tag is invalid');
    const scheduled = await alice.client.post('/api/v1/statuses', { status: 'later', scheduled_at: new Date(Date.now() + 3_600_000).toISOString() });
    expect(scheduled.status).toBe(200);
    expectError(
      await alice.client.put(`/api/v1/scheduled_statuses/${scheduled.body.id}`, { scheduled_at: new Date(Date.now() - 60_000).toISOString() }),
      422,
      'Validation failed: Scheduled at The scheduled date must be in the future',
    );
    expectError(
      await alice.client.post('/api/v1/reports', { account_id: carol.accountId, category: 'violation', rule_ids: ['999999'] }),
      422,
      'Validation failed: Rule ids does not reference valid rules',
    );
    const notMedia = new FormData();
    notMedia.append('file', new Blob([new TextEncoder().encode('just text')], { type: 'image/png' }), 'a.png');
    expectError(await alice.client.post('/api/v2/media', undefined, { multipart: notMedia }), 422, 'Validation failed: File content type is invalid, File is invalid');
  });

  it('parameters: Rails’ validation wording with the attribute humanized, ParameterMissing’s text for a missing one', async () => {
    const long = await alice.client.get(`/api/v1/accounts/${alice.accountId}/statuses?tagged=${'a'.repeat(201)}`);
    expectError(long, 422, 'Validation failed: Tagged is too long (maximum is 200 characters)');
    expect(long.body.details).toEqual({ tagged: [{ error: 'ERR_TOO_LONG', description: 'is too long (maximum is 200 characters)' }] });
    expectError(await alice.client.post(`/api/v1/accounts/${carol.accountId}/mute`, { duration: 'soon' }), 422, 'Validation failed: Duration is not a number');
    expectError(await alice.client.post(`/api/v1/accounts/${carol.accountId}/mute`, { duration: -5 }), 422, 'Validation failed: Duration must be greater than or equal to 0');
    expectError(await alice.client.get('/api/v2/search'), 400, 'param is missing or the value is empty or invalid: q');
  });

  it('a poll and media on one status: Mastodon’s "too many files" text', async () => {
    const png = new FormData();
    png.append('file', new Blob([new Uint8Array(await picture(8, 8, 'png'))], { type: 'image/png' }), 'a.png');
    const media = await alice.client.post('/api/v1/media', undefined, { multipart: png });
    expect(media.status).toBe(200);
    expectError(
      await alice.client.post('/api/v1/statuses', { status: 'both', media_ids: [media.body.id], poll: { options: ['a', 'b'], expires_in: 3600 } }),
      422,
      'Cannot attach more than 4 files',
    );
  });

  it('e-mail confirmation for a confirmed user', async () => {
    expectError(await alice.client.post('/api/v1/emails/confirmations'), 403, 'This method is only available while the e-mail is awaiting confirmation');
  });
});
