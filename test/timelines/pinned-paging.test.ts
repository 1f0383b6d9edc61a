import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';

/** Pinned statuses page like any account timeline, and the Link header keeps `pinned=true`. */
describe('paging pinned statuses', () => {
  const env = useInstance(['alice']);

  it('walks every pinned status through the next links, pinned=true kept', async () => {
    const { inst, users: { alice } } = env();
    const pinned: string[] = [];
    for (let i = 0; i < 5; i++) {
      const s = await postStatus(alice.client, { status: `pinned ${i}` });
      expect((await alice.client.post(`/api/v1/statuses/${s.id}/pin`)).status).toBe(200);
      pinned.unshift(s.id);
    }
    await postStatus(alice.client, { status: 'not pinned' });
    const seen: string[] = [];
    let path: string | null = `/api/v1/accounts/${alice.accountId}/statuses?pinned=true&limit=2`;
    while (path) {
      const res: { status: number; body: { id: string }[]; headers: Headers } = await inst.anon.get(path);
      expect(res.status).toBe(200);
      if (res.body.length === 0) break;
      seen.push(...res.body.map((s) => s.id));
      const header: string = res.headers.get('link') ?? '';
      for (const rel of ['next', 'prev']) {
        const url = new URL(new RegExp(`<([^>]+)>; rel="${rel}"`).exec(header)?.[1] ?? '');
        expect(url.searchParams.get('pinned'), rel).toBe('true');
      }
      const next: URL = new URL(/<([^>]+)>; rel="next"/.exec(header)?.[1] ?? '');
      path = next.pathname + next.search;
    }
    expect(seen).toEqual(pinned);
  });
});
