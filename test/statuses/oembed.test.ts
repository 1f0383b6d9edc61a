import { describe, expect, it } from 'vitest';
import { postStatus as post, useInstance } from '../helpers/fixtures.js';

describe('GET /api/oembed', () => {
  const env = useInstance(['alice', 'bob']);

  it('embeds a public status by its page or its ActivityPub id, as a rich oEmbed', async () => {
    const { inst, users } = env();
    expect((await users.alice.client.patch('/api/v1/accounts/update_credentials', { display_name: 'Alice <A>' })).status).toBe(200);
    const s = await post(users.alice.client, { status: 'Embed me' });
    const res = await inst.anon.get(`/api/oembed?url=${encodeURIComponent(s.url)}`);
    expect(res.status).toBe(200);
    const host = new URL(inst.url).host;
    expect(res.body).toMatchObject({
      type: 'rich',
      version: '1.0',
      title: 'New status by alice',
      author_name: 'Alice <A>',
      author_url: `${inst.url}/@alice`,
      provider_name: host,
      provider_url: `${inst.url}/`,
      cache_age: 86400,
      width: 400,
      height: null,
    });
    expect(res.body.html).toContain(`href="${s.url}"`);
    expect(res.body.html).toContain(`data-embed-url="${s.url}/embed"`);
    expect(res.body.html).toContain(`Post by @alice@${host}`);
    expect(res.body.html).not.toContain('<script');
    const byUri = await inst.anon.get(`/api/oembed?url=${encodeURIComponent(s.uri)}&maxwidth=600&maxheight=300`);
    expect(byUri.status).toBe(200);
    expect(byUri.body).toMatchObject({ width: 600, height: 300 });
    // An unlisted status can be embedded too.
    const unlisted = await post(users.alice.client, { status: 'Quiet', visibility: 'unlisted' });
    expect((await inst.anon.get(`/api/oembed?url=${encodeURIComponent(unlisted.url)}`)).status).toBe(200);
  });

  it('is 404 for private statuses, other hosts, wrong authors, other URLs, or no URL', async () => {
    const { inst, users } = env();
    const priv = await post(users.alice.client, { status: 'Friends only', visibility: 'private' });
    const pub = await post(users.alice.client, { status: 'Public' });
    const wrongAuthor = pub.url.replace('/@alice/', '/@bob/');
    const otherHost = pub.url.replace(new URL(inst.url).host, 'elsewhere.example');
    for (const url of [priv.url, wrongAuthor, otherHost, `${inst.url}/about`, 'not a url']) {
      const res = await inst.anon.get(`/api/oembed?url=${encodeURIComponent(url)}`);
      expect(res.status, url).toBe(404);
      expect(res.body).toEqual({ error: 'Record not found' });
    }
    expect((await inst.anon.get('/api/oembed')).status).toBe(404);
  });
});
