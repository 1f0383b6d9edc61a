import { describe, expect, it } from 'vitest';
import { useInstance } from '../helpers/fixtures.js';

describe('server basics', () => {
  const env = useInstance();

  it('answers /health with 200 once ready', async () => {
    const { inst } = env();
    const res = await fetch(`${inst.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('OK');
  });

  it('answers unknown paths with a Mastodon-style 404', async () => {
    const { inst } = env();
    const res = await inst.anon.get('/api/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Record not found' });
  });

  it('refuses a Host that is not on the allow-list (DNS rebinding)', async () => {
    const { inst } = env();
    const { request } = await import('node:http');
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${inst.url}/health`, { headers: { host: 'evil.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('rejects malformed JSON with 400', async () => {
    const { inst } = env();
    const res = await inst.anon.request('POST', '/api/v1/apps', { raw: { body: '{"client_name": ', type: 'application/json' } });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/pars/);
  });

  it('answers CORS preflights for the API', async () => {
    const { inst } = env();
    const res = await fetch(`${inst.url}/api/v1/instance`, {
      method: 'OPTIONS',
      headers: { origin: 'https://elk.example', 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.headers.get('access-control-allow-headers')).toBe('authorization');
  });
});
