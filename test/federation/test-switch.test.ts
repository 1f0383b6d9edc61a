import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../api/config.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { startFederated } from './helpers.js';

/**
 * The test switch (`--federation-allow-loopback`): without it an `http://` origin is refused, and
 * an instance never fetches from or delivers to private or loopback addresses.
 */
describe('the loopback test switch', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-switch-'));
  let peer: Awaited<ReturnType<typeof startFederated>>;
  let guarded: TestInstance;
  beforeAll(async () => {
    peer = await startFederated('127.0.0.12');
    await peer.createUser('pat');
    // A public https origin, no switch: the way a real instance runs.
    guarded = await startInstance({ origin: 'https://hearth.example' });
  });
  afterAll(async () => {
    await Promise.all([peer?.close(), guarded?.close()]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses an http:// origin unless the switch is on', () => {
    expect(() => resolveConfig({ dataDir: dir, origin: 'http://127.0.0.2:8080' }, {})).toThrow(/origin must be https:\/\//);
    expect(resolveConfig({ dataDir: dir, origin: 'http://127.0.0.2:8080', federationAllowLoopback: true }, {}).origin).toBe('http://127.0.0.2:8080');
    expect(resolveConfig({ dataDir: dir, origin: 'https://hearth.example' }, {}).origin).toBe('https://hearth.example');
    expect(() => resolveConfig({ dataDir: dir }, { HEARTH_ORIGIN: 'http://example.org' })).toThrow(/origin must be https:\/\//);
  });

  it('without the switch, a loopback actor is neither fetched by URL nor by handle', async () => {
    const user = await guarded.createUser('gina');
    for (const q of [`${peer.origin}/users/pat`, `pat@${peer.domain}`]) {
      const res = await user.client.get(`/api/v2/search?q=${encodeURIComponent(q)}&resolve=true&type=accounts`);
      expect(res.status).toBe(200);
      expect((res.body as { accounts: unknown[] }).accounts).toEqual([]);
    }
    expect(await guarded.app.federation?.resolveAccount(`${peer.origin}/users/pat`)).toBeNull();
    // The same lookups work from an instance with the switch: the peer itself is fine.
    const other = await startFederated('127.0.0.13');
    try {
      const found = await other.app.federation?.resolveAccount(`${peer.origin}/users/pat`);
      expect(found?.uri).toBe(`${peer.origin}/users/pat`);
    } finally {
      await other.close();
    }
  });
});
