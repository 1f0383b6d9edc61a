import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { kvSet, queueDepth } from '../../api/db/repos/federation.js';
import { now, resetClock, setClockTo } from '../../api/util/clock.js';
import type { TestInstance } from '../helpers/instance.js';

/** The captured requests and documents (test/fixtures/activitypub, described in its README). */
export const DIR = fileURLToPath(new URL('../fixtures/activitypub', import.meta.url));

/** One captured request (see the fixtures' README). */
export interface Captured {
  captured_at: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  raw_body: string;
}

/** Reads a captured request (`snac/07-follow.json`). */
export function fixture(path: string): Captured {
  return JSON.parse(readFileSync(join(DIR, path), 'utf8')) as Captured;
}

/** The JSON of a document a server served (`<server>/docs/<what>.json`). */
export function doc(server: string, name: string): Record<string, unknown> {
  return (JSON.parse(readFileSync(join(DIR, server, 'docs', `${name}.json`), 'utf8')) as { body: Record<string, unknown> }).body;
}

/** Puts a document in Fedify's remote-document cache, as if fetched (the capture hosts are offline). */
export function seedDocument(inst: TestInstance, url: string, body: unknown): void {
  kvSet(inst.deps.db, JSON.stringify(['_fedify', 'remoteDocument', url]), JSON.stringify({ contextUrl: null, documentUrl: url, document: body }), null);
}

/**
 * Seeds what the senders' hosts would serve: each key in `keys.json` into Fedify's public-key cache
 * (the inbox verifies with the shared-inbox key's signed loader, which has no document cache) and
 * each owner's actor document into the document cache (read when the sender is stored).
 */
export function seedServer(inst: TestInstance, server: string): void {
  const keys = JSON.parse(readFileSync(join(DIR, server, 'keys.json'), 'utf8')) as Record<string, { owner: string; publicKeyPem: string; actor_document: string }>;
  for (const [keyId, k] of Object.entries(keys)) {
    const key = { '@context': 'https://w3id.org/security/v1', id: keyId, type: 'CryptographicKey', owner: k.owner, publicKeyPem: k.publicKeyPem };
    kvSet(inst.deps.db, JSON.stringify(['_fedify', 'publicKey', keyId]), JSON.stringify(key), null);
    const actor = (JSON.parse(readFileSync(join(DIR, server, k.actor_document), 'utf8')) as { body: unknown }).body;
    seedDocument(inst, k.owner, actor);
  }
}

/** Replays a captured request on the instance's local address: headers (Host included) and body untouched. */
export function replay(inst: TestInstance, f: Captured, body = f.raw_body, headers: Record<string, string> = {}): Promise<number> {
  // node:http keeps the captured Host header (fetch would replace it, breaking the signature).
  const u = new URL(inst.url);
  const h: Record<string, string> = { ...f.headers, ...headers };
  for (const k of Object.keys(h)) if (k.toLowerCase() === 'content-length') h[k] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, method: f.method, path: new URL(f.url).pathname, headers: h }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Waits until the inbox queue has processed everything (the listeners run after the 202). */
export async function drain(inst: TestInstance): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (queueDepth(inst.deps.db, 'inbox', now() + 3_600_000).queued === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('inbox queue did not drain');
}

/** Replays captured requests at their capture time; each must be accepted (202) and processed. */
export async function deliver(inst: TestInstance, ...paths: string[]): Promise<void> {
  for (const path of paths) {
    const f = fixture(path);
    setClockTo(Date.parse(f.captured_at));
    try {
      expect(await replay(inst, f), path).toBe(202);
      await drain(inst);
    } finally {
      resetClock();
    }
  }
}

/** The signature header's name as the server spelled it. */
export function headerName(f: Captured, name: string): string {
  return Object.keys(f.headers).find((k) => k.toLowerCase() === name) ?? name;
}

/** Gives a local status the id the capture peer had, so that captured Likes and replies point to it. */
export function adoptUri(inst: TestInstance, statusId: string, uri: string): void {
  inst.deps.db.query('UPDATE statuses SET uri = @uri WHERE id = @id').run({ uri, id: statusId });
}
