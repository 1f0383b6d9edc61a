import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInThroughUi, useChromium } from '../helpers/chromium.js';

describe('the app at /', () => {
  const env = useInstance(['alice', 'bob']);
  const browser = useChromium();

  it('is served with a strict CSP to browsers, and not to API clients', async () => {
    const { inst } = env();
    const page = await fetch(`${inst.url}/`, { headers: { Accept: 'text/html' } });
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    const html = await page.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1] ?? '';
    const js = await fetch(`${inst.url}${asset}`, { headers: { 'Accept-Encoding': 'br, gzip' } });
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('immutable');
    // Compressed as the client accepts (fetch decodes it: same bytes as the plain copy).
    expect(js.headers.get('content-encoding')).toBe('br');
    const plain = await fetch(`${inst.url}${asset}`, { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(await js.text());
    // The app's own routes get the page; API paths and non-HTML requests keep their JSON 404.
    expect((await fetch(`${inst.url}/@alice/123`, { headers: { Accept: 'text/html' } })).headers.get('content-type')).toContain('text/html');
    const api = await fetch(`${inst.url}/api/v1/nothing`, { headers: { Accept: 'text/html' } });
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ error: 'Record not found' });
    expect((await fetch(`${inst.url}/notifications`, { headers: { Accept: 'application/json' } })).status).toBe(404);
    expect((await fetch(`${inst.url}/assets/..%2f..%2fpackage.json`)).status).toBe(404);
  });

  it('signs in through the instance, shows the home timeline with a post, and signs out', async () => {
    const { inst, users } = env();
    await users.alice.client.post(`/api/v1/accounts/${users.bob.accountId}/follow`, {});
    await postStatus(users.bob.client, { status: 'Hello from <b>bob</b> :)' });
    const { context, page } = await openPage(browser());
    await signInThroughUi(page, inst, users.alice);
    const feed = page.getByRole('feed', { name: 'Home' });
    // The post's text arrives as text: the tags in it are shown, not parsed.
    await feed.getByRole('article').filter({ hasText: 'Hello from <b>bob</b> :)' }).waitFor();
    expect(await feed.locator('b').count()).toBe(0);
    // The token the app got is a real one with the app's scopes.
    const accounts = await page.evaluate(() => JSON.parse(localStorage.getItem('hearth.accounts') ?? '[]') as { accessToken: string }[]);
    const token = accounts[0]?.accessToken ?? '';
    const verify = await fetch(`${inst.url}/api/v1/apps/verify_credentials`, { headers: { Authorization: `Bearer ${token}` } });
    expect(((await verify.json()) as { name: string }).name).toBe('Hearth');
    await page.getByRole('button', { name: /account menu/ }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await fetch(`${inst.url}/api/v1/apps/verify_credentials`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(401);
    expectCleanPage(page);
    await context.close();
  });
});
