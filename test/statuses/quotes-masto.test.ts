import { createRestAPIClient, type mastodon } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance } from '../helpers/instance.js';

describe('quote posts with the masto client library', () => {
  let inst: TestInstance;
  let alices: mastodon.rest.Client;
  let bobs: mastodon.rest.Client;

  beforeAll(async () => {
    inst = await startInstance();
    alices = createRestAPIClient({ url: inst.url, accessToken: (await inst.createUser('alice')).token });
    bobs = createRestAPIClient({ url: inst.url, accessToken: (await inst.createUser('bob')).token });
  });
  afterAll(async () => {
    await inst.close();
  });

  it('posts a quote with quotedStatusId and quoteApprovalPolicy, reads it, and lists the quotes', async () => {
    const original = await alices.v1.statuses.create({ status: 'masto original', quoteApprovalPolicy: 'public' });
    expect(original.quoteApproval).toEqual({ automatic: ['public'], manual: [], currentUser: 'automatic' });
    expect(original.quotesCount).toBe(0);

    const quote = await bobs.v1.statuses.create({ status: 'masto quote', quotedStatusId: original.id, quoteApprovalPolicy: 'nobody' });
    expect(quote.quote?.state).toBe('accepted');
    const quoted = quote.quote && 'quotedStatus' in quote.quote ? quote.quote.quotedStatus : null;
    expect(quoted?.id).toBe(original.id);
    expect(quote.quoteApproval.automatic).toEqual([]);

    const fetched = await alices.v1.statuses.$select(quote.id).fetch();
    expect(fetched.quote && 'quotedStatus' in fetched.quote ? fetched.quote.quotedStatus?.content : null).toBe('<p>masto original</p>');
    expect((await alices.v1.statuses.$select(original.id).fetch()).quotesCount).toBe(1);

    const list = await alices.v1.statuses.$select(original.id).quotes.list();
    expect(list.map((s) => s.id)).toEqual([quote.id]);

    await expect(bobs.v1.statuses.create({ status: 'no', quotedStatusId: '1' })).rejects.toMatchObject({ statusCode: 404 });
  });
});
