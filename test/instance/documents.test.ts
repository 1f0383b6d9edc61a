import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addRule, listRules, removeRule, updateRule } from '../../api/core/instance/rules.js';
import { setExtendedDescription, setInstanceSetting, setPrivacyPolicy, setTermsOfService } from '../../api/core/instance/settings.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { addInstanceDomain, removeInstanceDomain } from '../../api/core/federation/instance-domains.js';

describe('rules', () => {
  let inst: TestInstance;
  beforeAll(async () => {
    inst = await startInstance();
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('lists rules in order with string ids, in /rules and in the instance entities', async () => {
    const first = addRule(inst.deps, { text: 'Be kind', hint: 'To everyone, including strangers.' });
    const second = addRule(inst.deps, { text: 'No spam' });
    const res = await inst.anon.get('/api/v1/instance/rules');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { id: first.id, text: 'Be kind', hint: 'To everyone, including strangers.', translations: {} },
      { id: second.id, text: 'No spam', hint: '', translations: {} },
    ]);
    expect(typeof res.body[0].id).toBe('string');
    expect(res.body[0].id).toMatch(/^\d+$/);
    expect((await inst.anon.get('/api/v1/instance')).body.rules).toEqual(res.body);
    expect((await inst.anon.get('/api/v2/instance')).body.rules).toEqual(res.body);
  });

  it('reorders, edits and removes rules', async () => {
    const [a, b] = listRules(inst.deps);
    if (!a || !b) throw new Error('rules missing');
    updateRule(inst.deps, b.id, { position: -1, text: 'No spam, ever' });
    expect((await inst.anon.get('/api/v1/instance/rules')).body.map((r: { text: string }) => r.text)).toEqual(['No spam, ever', 'Be kind']);
    removeRule(inst.deps, b.id);
    expect((await inst.anon.get('/api/v1/instance/rules')).body.map((r: { id: string }) => r.id)).toEqual([a.id]);
  });

  it('refuses blank or overlong rules and unknown ids', () => {
    expect(() => addRule(inst.deps, { text: '   ' })).toThrow(/blank/);
    expect(() => addRule(inst.deps, { text: 'x'.repeat(301) })).toThrow(/too long/);
    expect(() => updateRule(inst.deps, '12345', { text: 'x' })).toThrow(/Record not found/);
    expect(() => removeRule(inst.deps, '12345')).toThrow(/Record not found/);
    expect(listRules(inst.deps)).toHaveLength(1);
  });
});

describe('instance documents', () => {
  let inst: TestInstance;
  let user: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    user = await inst.createUser('kim', { role: 'owner' });
  });
  afterAll(async () => {
    await inst?.close();
  });

  it('serves the built-in privacy policy as HTML naming this instance', async () => {
    const res = await inst.anon.get('/api/v1/instance/privacy_policy');
    expect(res.status).toBe(200);
    expect(res.body.updated_at).toBe('2026-11-22T00:00:00.000Z');
    const domain = new URL(inst.url).host;
    expect(res.body.content).toContain(`<h1>Privacy policy of ${domain}</h1>`);
    expect(res.body.content).toContain('<ul>\n<li><strong>Your account</strong>');
    expect(res.body.content).not.toContain('%{domain}');
  });

  it('serves a custom privacy policy written in Markdown, raw HTML escaped', async () => {
    const before = Date.now();
    setPrivacyPolicy(inst.deps, '# Our policy for %{domain}\n\nWe keep **nothing**.\n<script>alert(1)</script>\n\n[more](https://example.test/more) [bad](javascript:alert) ![x](https://example.test/x.png)');
    const res = await inst.anon.get('/api/v1/instance/privacy_policy');
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(before - 1);
    expect(res.body.content).toBe(
      `<h1>Our policy for ${new URL(inst.url).host}</h1>\n\n<p>We keep <strong>nothing</strong>.\n&lt;script&gt;alert(1)&lt;/script&gt;</p>\n\n` +
        '<p><a href="https://example.test/more">more</a> bad ![x](https://example.test/x.png)</p>\n',
    );
    setPrivacyPolicy(inst.deps, null);
    expect((await inst.anon.get('/api/v1/instance/privacy_policy')).body.updated_at).toBe('2026-11-22T00:00:00.000Z');
  });

  it('serves the extended description, empty and without an update time until written', async () => {
    const empty = await inst.anon.get('/api/v1/instance/extended_description');
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ updated_at: null, content: '' });
    const before = Date.now();
    setExtendedDescription(inst.deps, '## Who we are\n\nA family server.');
    const res = await inst.anon.get('/api/v1/instance/extended_description');
    expect(res.body.content).toBe('<h2>Who we are</h2>\n\n<p>A family server.</p>\n');
    expect(Date.parse(res.body.updated_at)).toBeGreaterThanOrEqual(before - 1);
  });

  it('answers 404 for terms of service until some are set', async () => {
    const none = await inst.anon.get('/api/v1/instance/terms_of_service');
    expect(none.status).toBe(404);
    expect(none.body).toEqual({ error: 'Record not found' });
    setTermsOfService(inst.deps, 'Be *nice*.', '2026-01-15');
    const res = await inst.anon.get('/api/v1/instance/terms_of_service');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ effective_date: '2026-01-15', effective: true, content: '<p>Be <em>nice</em>.</p>\n', succeeded_by: null });
    expect((await inst.anon.get('/api/v1/instance/terms_of_service/2026-01-15')).body.effective_date).toBe('2026-01-15');
    expect((await inst.anon.get('/api/v1/instance/terms_of_service/2025-01-01')).status).toBe(404);
    expect((await inst.anon.get('/api/v1/instance/terms_of_service/yesterday')).status).toBe(404);
    setTermsOfService(inst.deps, 'Later terms.', '2999-01-01');
    expect((await inst.anon.get('/api/v1/instance/terms_of_service')).body.effective).toBe(false);
    setTermsOfService(inst.deps, null);
    expect((await inst.anon.get('/api/v1/instance/terms_of_service')).status).toBe(404);
  });

  it('lists the supported languages with names, and no translation pairs', async () => {
    const res = await inst.anon.get('/api/v1/instance/languages');
    expect(res.status).toBe(200);
    expect(res.body).toContainEqual({ code: 'en', name: 'English' });
    expect(res.body).toContainEqual({ code: 'de', name: 'German' });
    expect(res.body.length).toBeGreaterThan(150);
    const translation = await inst.anon.get('/api/v1/instance/translation_languages');
    expect(translation.status).toBe(200);
    expect(translation.body).toEqual({});
  });

  it('keeps domain blocks hidden by default and shows them as configured', async () => {
    const hidden = await inst.anon.get('/api/v1/instance/domain_blocks');
    expect(hidden.status).toBe(404);
    expect(hidden.text).toBe('');
    setInstanceSetting(inst.deps, 'show_domain_blocks', 'users');
    const anon = await inst.anon.get('/api/v1/instance/domain_blocks');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ error: 'This method requires an authenticated user' });
    expect((await user.client.get('/api/v1/instance/domain_blocks')).body).toEqual([]);
    setInstanceSetting(inst.deps, 'show_domain_blocks', 'all');
    const open = await inst.anon.get('/api/v1/instance/domain_blocks');
    expect(open.status).toBe(200);
    expect(open.body).toEqual([]);
  });

  it('publishes the instance domain blocks, in Unicode with the digest of the stored form', async () => {
    setInstanceSetting(inst.deps, 'show_domain_blocks', 'all');
    addInstanceDomain(inst.deps, 'block', 'bücher.example');
    const res = await inst.anon.get('/api/v1/instance/domain_blocks');
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      {
        domain: 'bücher.example',
        digest: createHash('sha256').update('xn--bcher-kva.example').digest('hex'),
        severity: 'suspend',
        comment: null,
      },
    ]);
    removeInstanceDomain(inst.deps, 'block', 'bücher.example');
    expect((await inst.anon.get('/api/v1/instance/domain_blocks')).body).toEqual([]);
  });
});
