import { afterAll, describe, expect, it } from 'vitest';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { useInstance } from '../helpers/fixtures.js';

const YEAR = new Date().getUTCFullYear();

// Mastodon 4.6's Instance `wrapstodon`: the year of the annual-report campaign under way (10 to
// 31 December), null the rest of the year, as the annual reports methods offer them.
describe('GET /api/v2/instance wrapstodon', () => {
  afterAll(() => resetClock());
  const env = useInstance(['alice']);

  it('names the campaign year from 10 December on, and is null outside it', async () => {
    const { inst, users } = env();
    setClockTo(Date.UTC(YEAR, 6, 1, 12));
    const july = await inst.anon.get('/api/v2/instance');
    expect(july.status).toBe(200);
    expect(july.body).toHaveProperty('wrapstodon', null);

    setClockTo(Date.UTC(YEAR, 11, 9, 23, 59));
    expect((await inst.anon.get('/api/v2/instance')).body.wrapstodon).toBeNull();

    setClockTo(Date.UTC(YEAR, 11, 10, 0, 1));
    expect((await inst.anon.get('/api/v2/instance')).body.wrapstodon).toBe(String(YEAR));
    // The same answer as the annual reports methods give: reports of that year can be asked for.
    expect((await users.alice.client.get(`/api/v1/annual_reports/${YEAR}/state`)).status).toBe(200);

    setClockTo(Date.UTC(YEAR, 11, 31, 23, 0));
    expect((await inst.anon.get('/api/v2/instance')).body.wrapstodon).toBe(String(YEAR));

    setClockTo(Date.UTC(YEAR + 1, 0, 1, 0, 30));
    expect((await inst.anon.get('/api/v2/instance')).body.wrapstodon).toBeNull();
  });
});
