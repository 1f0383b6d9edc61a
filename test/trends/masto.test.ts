import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardsIdle } from '../../api/core/cards/install.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { Articles, discoverable, post } from './helpers.js';

describe('trends and the link timeline with the masto client library', () => {
  let inst: TestInstance;
  let web: Articles;
  const u = {} as Record<'alice' | 'bob' | 'carol', TestUser>;

  beforeAll(async () => {
    web = new Articles();
    await web.start();
    inst = await startInstance({ federationAllowLoopback: true });
    for (const name of ['alice', 'bob', 'carol'] as const) {
      u[name] = await inst.createUser(name);
      await discoverable(u[name].client);
    }
  });
  afterAll(async () => {
    await inst.close();
    await web.stop();
  });

  it('reads trending tags, statuses and links, then the statuses sharing a trending link', async () => {
    const masto = createRestAPIClient({ url: inst.url, accessToken: u.carol.token });
    expect(await masto.v1.trends.tags.list()).toEqual([]);
    expect(await masto.v1.trends.statuses.list()).toEqual([]);
    expect(await masto.v1.trends.links.list()).toEqual([]);

    const link = `${web.base}/masto-story`;
    const a = await post(u.alice.client, { status: `#reading ${link}` });
    const b = await post(u.bob.client, { status: `#reading too ${link}` });
    await cardsIdle(inst.deps);
    await masto.v1.statuses.$select(a.id).favourite();
    await masto.v1.statuses.$select(a.id).reblog();
    await createRestAPIClient({ url: inst.url, accessToken: u.bob.token }).v1.statuses.$select(a.id).favourite();

    const tags = await masto.v1.trends.tags.list({ limit: 5 });
    expect(tags.map((t) => t.name)).toEqual(['reading']);
    expect(tags[0]?.history?.[0]).toMatchObject({ uses: '2', accounts: '2' });
    expect(tags[0]?.following).toBe(false);

    const statuses = await masto.v1.trends.statuses.list();
    expect(statuses.map((s) => s.id)).toEqual([a.id]);
    expect(statuses[0]?.favourited).toBe(true);

    const links = await masto.v1.trends.links.list();
    expect(links.map((l) => l.url)).toEqual([link]);
    expect(links[0]?.history[0]).toMatchObject({ uses: '2', accounts: '2' });

    const timeline = await masto.v1.timelines.link.list({ url: link });
    expect(timeline.map((s) => s.id)).toEqual([b.id, a.id]);
    const paged: string[] = [];
    for await (const page of masto.v1.timelines.link.list({ url: link, limit: 1 })) paged.push(...page.map((s) => s.id));
    expect(paged).toEqual([b.id, a.id]);

    await expect(masto.v1.timelines.link.list({ url: `${web.base}/not-trending` })).rejects.toThrow(/Record not found/);
  });
});
