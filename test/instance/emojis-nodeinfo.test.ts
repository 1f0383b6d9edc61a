import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEARTH_VERSION } from '../../api/util/version.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { insertEmoji, insertStatusRow } from './fixtures.js';

describe('GET /api/v1/custom_emojis', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance();
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('answers an empty list when there are none', async () => {
    const res = await inst.anon.get('/api/v1/custom_emojis');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([]);
  });

  it('lists the enabled local emojis with their files, picker flag and category', async () => {
    insertEmoji(inst.deps.db, { shortcode: 'hearth_fire', category: 'Hearth' });
    insertEmoji(inst.deps.db, { shortcode: 'blobcat', visibleInPicker: false, staticFile: null });
    insertEmoji(inst.deps.db, { shortcode: 'gone', disabled: true });
    insertEmoji(inst.deps.db, { shortcode: 'remote_one', domain: 'remote.example' });
    const res = await inst.anon.get('/api/v1/custom_emojis');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        shortcode: 'blobcat',
        url: `${inst.url}/system/custom_emojis/blobcat.png`,
        static_url: `${inst.url}/system/custom_emojis/blobcat.png`,
        visible_in_picker: false,
        category: null,
      },
      {
        shortcode: 'hearth_fire',
        url: `${inst.url}/system/custom_emojis/hearth_fire.png`,
        static_url: `${inst.url}/system/custom_emojis/hearth_fire-static.png`,
        visible_in_picker: true,
        category: 'Hearth',
      },
    ]);
  });
});

describe('NodeInfo', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance({ registrations: 'approval' });
    const kim = await inst.createUser('kim', { role: 'owner' });
    await inst.createUser('sam');
    insertStatusRow(inst.deps.db, { accountId: kim.accountId, visibility: 'public', createdAt: Date.now() });
    insertStatusRow(inst.deps.db, { accountId: kim.accountId, visibility: 'direct', createdAt: Date.now() });
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('links to the 2.0 and 2.1 documents from /.well-known/nodeinfo', async () => {
    const res = await fetch(`${inst.url}/.well-known/nodeinfo`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      links: [
        { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.0', href: `${inst.url}/nodeinfo/2.0` },
        { rel: 'http://nodeinfo.diaspora.software/ns/schema/2.1', href: `${inst.url}/nodeinfo/2.1` },
      ],
    });
  });

  for (const version of ['2.0', '2.1'] as const) {
    it(`serves NodeInfo ${version} with its schema profile`, async () => {
      const res = await fetch(`${inst.url}/nodeinfo/${version}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(
        new RegExp(`^application/json; profile="http://nodeinfo\\.diaspora\\.software/ns/schema/${version.replace('.', '\\.')}#"`),
      );
      const body = (await res.json()) as Record<string, unknown>;
      expect(body).toEqual({
        version,
        // No repository or home page is declared, so 2.1 names none rather than invent one.
        software: { name: 'hearth', version: HEARTH_VERSION },
        protocols: ['activitypub'],
        services: { inbound: [], outbound: [] },
        openRegistrations: true,
        usage: { users: { total: 2, activeMonth: 2, activeHalfyear: 2 }, localPosts: 2 },
        metadata: { nodeName: 'Hearth', nodeDescription: '' },
      });
      expect((body.software as { name: string }).name).toMatch(/^[a-z0-9-]+$/);
    });
  }

  it('ignores tokens on the public documents', async () => {
    const res = await fetch(`${inst.url}/nodeinfo/2.0`, { headers: { authorization: 'Bearer nonsense' } });
    expect(res.status).toBe(200);
  });
});
