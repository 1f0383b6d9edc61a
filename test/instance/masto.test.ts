import { createRestAPIClient } from 'masto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRule } from '../../api/core/instance/rules.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { insertEmoji } from './fixtures.js';

describe('instance information through the masto client library', () => {
  let inst: TestInstance;
  let owner: TestUser;
  beforeAll(async () => {
    inst = await startInstance({ registrations: 'approval' });
    owner = await inst.createUser('kim', { role: 'owner' });
    addRule(inst.deps, { text: 'Be kind' });
    insertEmoji(inst.deps.db, { shortcode: 'ember', category: 'Hearth' });
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('reads v1 and v2 instance, rules, activity, peers and emojis', async () => {
    const masto = createRestAPIClient({ url: inst.url });
    const v2 = await masto.v2.instance.fetch();
    expect(v2.domain).toBe(new URL(inst.url).host);
    expect(v2.registrations.approvalRequired).toBe(true);
    expect(v2.configuration.translation.enabled).toBe(false);
    expect(v2.configuration.accounts.maxFeaturedTags).toBe(10);
    expect(v2.contact.account?.id).toBe(owner.accountId);
    expect(v2.rules.map((r) => r.text)).toEqual(['Be kind']);
    const v1 = await masto.v1.instance.fetch();
    expect(v1.approvalRequired).toBe(true);
    expect(v1.configuration.statuses.maxCharacters).toBe(500);
    const activity = await masto.v1.instance.activity.list();
    expect(activity).toHaveLength(12);
    expect(await masto.v1.instance.peers.list()).toEqual([]);
    const emojis = await masto.v1.customEmojis.list();
    expect(emojis.map((e) => [e.shortcode, e.category])).toEqual([['ember', 'Hearth']]);
    const about = await masto.v1.instance.extendedDescription.fetch();
    expect(about.content).toBe('');
  });
});
