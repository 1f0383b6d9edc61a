import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALL_SCOPES, scopeCovers } from '../../api/core/oauth/scopes.js';
import type { RouteInfo } from '../../api/http/routes.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

/** A concrete path for a route pattern: every `:param` becomes a plausible id. */
function concrete(path: string): string {
  return path.replace(/:([a-z_]+)/gi, (_m, name: string) => (name.endsWith('id') ? '1' : 'x'));
}

/** A scope that covers none of the route's scopes (so a token with only it must get 403). */
function unrelatedScope(route: RouteInfo): string {
  const scope = ALL_SCOPES.find((s) => !route.scopes.some((r) => scopeCovers(new Set([s]), r)));
  if (!scope) throw new Error(`no unrelated scope for ${route.path}`);
  return scope;
}

describe('route table: every route checks its token and scope', () => {
  let inst: TestInstance;
  let user: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    user = await inst.createUser('routecheck');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('declares a scope on every route that needs a token', () => {
    const missing = inst.app.routes.filter((r) => (r.auth === 'user' || r.auth === 'app') && r.scopes.length === 0);
    // Only the app-credential check may accept any token without a scope, as Mastodon does.
    expect(missing.map((r) => `${r.method} ${r.path}`).filter((r) => r !== 'get /api/v1/apps/verify_credentials')).toEqual([]);
    expect(inst.app.routes.length).toBeGreaterThan(20);
  });

  it('answers 401 without a token on routes that need one (403 "This action is not allowed" on the admin API, as Mastodon)', async () => {
    const failures: string[] = [];
    const admin = /^\/api\/v[12]\/admin\//;
    for (const route of inst.app.routes.filter((r) => r.auth === 'user' || r.auth === 'app' || (r.auth === 'public' && admin.test(r.path)))) {
      const res = await inst.anon.request(route.method.toUpperCase(), concrete(route.path), { skipSchema: true });
      const expected = admin.test(route.path) ? 403 : 401;
      if (res.status !== expected || (expected === 403 && res.body?.error !== 'This action is not allowed')) failures.push(`${route.method} ${route.path} → ${res.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 401 for an unknown token on every route that looks at tokens', async () => {
    const failures: string[] = [];
    for (const route of inst.app.routes.filter((r) => r.auth !== 'none')) {
      const res = await inst.anon.request(route.method.toUpperCase(), concrete(route.path), { token: 'not-a-real-token', skipSchema: true });
      if (res.status !== 401) failures.push(`${route.method} ${route.path} → ${res.status}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 403 for a token without the route scope', async () => {
    const failures: string[] = [];
    for (const route of inst.app.routes.filter((r) => r.auth !== 'none' && r.scopes.length > 0)) {
      const token = inst.tokenFor(user, unrelatedScope(route));
      const res = await inst.anon.request(route.method.toUpperCase(), concrete(route.path), { token, skipSchema: true });
      if (res.status !== 403) failures.push(`${route.method} ${route.path} → ${res.status}`);
    }
    expect(failures).toEqual([]);
  });
});
