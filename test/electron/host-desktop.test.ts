import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DESKTOP_CLIENT_ID, desktopConfig, startDesktopServer, type DesktopServer } from '../../api/desktop.js';
import { createOwner, getJson, tempPlace } from './host-rig.js';

/**
 * api/desktop.ts, the api's start function for the desktop app: the configuration is resolved as
 * `hearth serve` resolves it, from the desktop's options and the data directory's config file but
 * no HEARTH_* variables; the HTTPS listener and the public origin are reported; the owner's token
 * for the app is issued once, given again while valid, and replaced when the owner revokes it.
 */
describe('the desktop start function', () => {
  const place = tempPlace();
  let server: DesktopServer;

  beforeAll(async () => {
    mkdirSync(place.dataDir, { recursive: true });
    writeFileSync(join(place.dataDir, 'hearth.json'), JSON.stringify({ httpsPort: 0, port: 1 }));
    server = await startDesktopServer({ dataDir: place.dataDir, log: () => {} });
  });
  afterAll(async () => {
    await server?.close();
    place.remove();
  });

  it('honours the config file, with the desktop’s options winning, and ignores HEARTH_* variables', () => {
    const saved = { origin: process.env.HEARTH_ORIGIN, registrations: process.env.HEARTH_REGISTRATIONS };
    process.env.HEARTH_ORIGIN = 'https://elsewhere.example';
    process.env.HEARTH_REGISTRATIONS = 'open';
    const other = tempPlace();
    try {
      mkdirSync(other.dataDir);
      writeFileSync(join(other.dataDir, 'hearth.json'), JSON.stringify({ httpsPort: 0, origin: 'https://kim.example', registrations: 'approval', port: 1, bind: '0.0.0.0' }));
      const config = desktopConfig({ dataDir: other.dataDir });
      expect(config).toMatchObject({ port: 0, bind: '127.0.0.1', origin: 'https://kim.example', registrations: 'approval', httpsPort: 0, reachFromCommandLine: false });
      expect(desktopConfig({ dataDir: other.dataDir, port: 7480, httpsPort: null })).toMatchObject({ port: 7480, httpsPort: null });
    } finally {
      other.remove();
      for (const [key, value] of Object.entries({ HEARTH_ORIGIN: saved.origin, HEARTH_REGISTRATIONS: saved.registrations })) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it('reports where it is reached: the local address, HTTPS for other apps (the public origin: see host-lifecycle)', async () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.httpsUrl).toMatch(/^https:\/\/hearth\.localhost:\d+$/);
    expect(server.caFile && existsSync(server.caFile)).toBe(true);
    expect(server.publicOrigin).toBeNull();
    expect(server.info()).toEqual({ url: server.url, httpsUrl: server.httpsUrl, caFile: server.caFile, publicOrigin: null });
    // The authority file is the one that HTTPS address's certificate chains to.
    const { port } = new URL(server.httpsUrl ?? '');
    const status = await new Promise<number | undefined>((resolve, reject) =>
      httpsGet({ host: '127.0.0.1', port, path: '/health', servername: 'hearth.localhost', headers: { host: `hearth.localhost:${port}` }, ca: readFileSync(server.caFile ?? '') }, (res) => {
        res.resume();
        resolve(res.statusCode);
      }).on('error', reject),
    );
    expect(status).toBe(200);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });

  it('gives the owner’s token for the app, again while it is valid, and a new one once the owner revoked it', async () => {
    expect(server.ownerToken()).toBeNull();
    await createOwner(server.url);
    const token = server.ownerToken() ?? '';
    expect(token).not.toBe('');
    expect(server.ownerToken()).toBe(token);
    const apps = await getJson(`${server.url}/api/hearth/authorized_apps`, token);
    expect(apps.status).toBe(200);
    const listed = apps.body as unknown as { id: string; name: string; scopes: string[]; tokens: number }[];
    expect(listed.map(({ name, scopes, tokens }) => ({ name, scopes, tokens }))).toEqual([{ name: 'Hearth desktop', scopes: ['read', 'write'], tokens: 1 }]);
    expect(DESKTOP_CLIENT_ID).toBe('hearth-desktop');

    // The owner revokes it under "Authorized apps": the next ask issues a new one.
    const revoked = await fetch(`${server.url}/api/hearth/authorized_apps/${listed[0]?.id}`, { method: 'DELETE', headers: { authorization: `Bearer ${token}` } });
    expect(revoked.status).toBe(200);
    expect((await getJson(`${server.url}/api/v1/accounts/verify_credentials`, token)).status).toBe(401);
    const next = server.ownerToken() ?? '';
    expect(next).not.toBe(token);
    expect((await getJson(`${server.url}/api/v1/accounts/verify_credentials`, next)).body.username).toBe('kim');
  });
});

describe('the server host’s modules', () => {
  it('import nothing of Electron, and of the api only its desktop start function (types aside)', () => {
    const dir = fileURLToPath(new URL('../../electron/host/', import.meta.url));
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'));
    expect(files).toContain('server-entry.ts');
    const offending: string[] = [];
    for (const file of files) {
      const text = readFileSync(join(dir, file), 'utf8');
      for (const [, kind, spec] of text.matchAll(/\bimport\s*(type\s)?[^'"]*?(?:from\s*)?\(?\s*'([^']+)'/g)) {
        if (spec === 'electron' || spec?.startsWith('electron/')) offending.push(`${file} -> ${spec}`);
        if (spec?.includes('/api/') && !kind && !spec.endsWith('/api/desktop.js')) offending.push(`${file} -> ${spec}`);
      }
    }
    expect(offending).toEqual([]);
    // The check sees the imports it checks.
    expect(readFileSync(join(dir, 'server-entry.ts'), 'utf8')).toMatch(/import\('\.\.\/\.\.\/api\/desktop\.js'\)/);
  });
});
