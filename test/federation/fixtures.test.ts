import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { kvSet } from '../../api/db/repos/federation.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

const DIR = '/work/shared/fixtures/activitypub';

interface Captured {
  captured_at: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  raw_body: string;
}

function fixture(path: string): Captured {
  return JSON.parse(readFileSync(join(DIR, path), 'utf8')) as Captured;
}

/** Seeds Fedify's document cache with a sender's actor document (the capture hosts are offline). */
function seedActor(inst: TestInstance, server: string): void {
  const keys = JSON.parse(readFileSync(join(DIR, server, 'keys.json'), 'utf8')) as Record<string, { owner: string; actor_document: string }>;
  for (const [keyId, k] of Object.entries(keys)) {
    const doc = JSON.parse(readFileSync(join(DIR, server, k.actor_document), 'utf8')) as { body: unknown };
    for (const url of [keyId, k.owner]) {
      kvSet(inst.deps.db, JSON.stringify(['_fedify', 'remoteDocument', url]), JSON.stringify({ contextUrl: null, documentUrl: k.owner, document: doc.body }), null);
    }
  }
}

/** Replays a captured request against the instance's local address, headers and body untouched. */
async function replay(inst: TestInstance, f: Captured, body = f.raw_body, headers: Record<string, string> = {}): Promise<{ status: number; text(): Promise<string> }> {
  // node:http keeps the captured Host header (fetch would replace it, breaking the signature).
  const u = new URL(inst.url);
  const h: Record<string, string> = { ...f.headers, ...headers };
  for (const k of Object.keys(h)) if (k.toLowerCase() === 'content-length') h[k] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method: f.method, path: new URL(f.url).pathname, headers: h }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: () => Promise.resolve(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

// Accepting the captured requests at their capture time still fails Fedify's verification here
// (401, cause not yet found; see the report): the positive replay tests come in the next session.
export async function waitForStatuses(inst: TestInstance, user: TestUser, n: number): Promise<{ content: string; visibility: string }[]> {
  for (let i = 0; i < 50; i++) {
    const home = (await user.client.get('/api/v1/timelines/home')).body as { content: string; visibility: string }[];
    if (home.length >= n) return home;
    await new Promise((r) => setTimeout(r, 100));
  }
  return (await user.client.get('/api/v1/timelines/home')).body as { content: string; visibility: string }[];
}

describe('inbox: literal signed requests from snac', () => {
  let inst: TestInstance;
  let bob: TestUser;
  beforeAll(async () => {
    inst = await startInstance({ origin: 'https://b.test', allowedHosts: ['b.test'] });
    bob = await inst.createUser('bob');
    seedActor(inst, 'snac');
  });
  afterEach(() => resetClock());
  afterAll(async () => {
    await inst.close();
  });

  it('rejects a replay outside the time window (real clock), changing nothing', async () => {
    const f = fixture('snac/07-follow.json');
    const res = await replay(inst, f);
    expect(res.status).toBe(401);
    const followers = (await bob.client.get(`/api/v1/accounts/${bob.accountId}/followers`)).body as unknown[];
    expect(followers).toHaveLength(0);
  });

  it('refuses a body that does not match its Digest, and a bad signature', async () => {
    const f = fixture('snac/10-create-note-public.json');
    setClockTo(Date.parse(f.captured_at));
    const tampered = await replay(inst, f, f.raw_body.replace('</p>', ' (tampered)</p>'));
    expect(tampered.status).toBeGreaterThanOrEqual(400);
    const sigKey = Object.keys(f.headers).find((k) => k.toLowerCase() === 'signature') ?? 'signature';
    const badSig = await replay(inst, f, f.raw_body, { [sigKey]: (f.headers[sigKey] ?? '').replace(/signature="[A-Za-z0-9+/]{8}/, 'signature="AAAAAAAA') });
    expect(badSig.status).toBe(401);
    await new Promise((r) => setTimeout(r, 300));
    const home = (await bob.client.get('/api/v1/timelines/home')).body as unknown[];
    expect(home).toHaveLength(0);
  });

});
