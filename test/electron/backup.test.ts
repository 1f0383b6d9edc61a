import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backupDataDir, checkArchive, restoreDataDir } from '../../electron/data/index.js';
import { classifyEntry } from '../../electron/data/layout.js';
import { knownSchemaVersion } from '../../electron/data/manifest.js';
import type { DataProgressUpdate } from '../../electron/data/progress.js';
import { TestClient } from '../helpers/client.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { download, picture, upload } from '../media/helpers.js';
import { expectMonotonicToOne, readEntries } from './backup-helpers.js';

/**
 * The acceptance of issue 17's backup and restore: a backup taken while the server keeps
 * acknowledging writes restores to a database that passes `PRAGMA integrity_check` and holds every
 * write acknowledged before the backup began, with the media, and an instance runs on it.
 */
describe('backup and restore under write load', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-backup-'));
    // With the HTTPS listener, so the data directory has its certificate authority (tls/) too.
    inst = await startInstance({ httpsPort: 0, rateLimitScale: 100 });
    alice = await inst.createUser('alice');
  });
  afterAll(async () => {
    await inst.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('knows every top-level entry a live data directory holds (a new folder of data must be placed)', () => {
    const names = readdirSync(inst.dataDir);
    expect(names).toContain('hearth.sqlite3');
    expect(names).toContain('tls');
    expect(names.filter((n) => classifyEntry(n) === 'foreign')).toEqual([]);
  });

  it('restores every write acknowledged before the backup began, the media and the certificates; an instance runs on it', async () => {
    const png = await picture(40, 30, 'png');
    const media = await upload(alice.client, png, { type: 'image/png', name: 'a.png' });
    expect(media.status, media.text).toBe(200);
    const withMedia = await alice.client.post('/api/v1/statuses', { status: 'a picture to keep', media_ids: [media.body.id] });
    expect(withMedia.status, withMedia.text).toBe(200);
    const mediaKey = new URL(media.body.url as string).pathname.replace(/^\/system\//, '');
    const mediaBytes = await download(media.body.url as string);

    // Three writers post statuses without pause, before, during and after the backup.
    const acknowledged: string[] = [];
    let stop = false;
    let started = 0;
    const writer = async () => {
      while (!stop) {
        const n = started++;
        const res = await alice.client.post('/api/v1/statuses', { status: `load ${n}` });
        expect(res.status, res.text).toBe(200);
        acknowledged.push(res.body.id as string);
      }
    };
    const writers = [writer(), writer(), writer()];
    while (acknowledged.length < 15) await new Promise((r) => setTimeout(r, 10));

    const before = new Set(acknowledged);
    const archivePath = join(dir, 'hearth-backup.tar.gz');
    const progress: DataProgressUpdate[] = [];
    // One page per step at first: the copy runs in many steps between the writers' commits, which
    // make SQLite restart it; it must still finish, with the steps growing.
    const result = await backupDataDir({ dataDir: inst.dataDir, archivePath, onProgress: (p) => progress.push(p), firstStepPages: 1 });
    const duringBackup = acknowledged.length - before.size;
    stop = true;
    await Promise.all(writers);

    expect(duringBackup, 'writes were acknowledged while the backup ran').toBeGreaterThan(0);
    expectMonotonicToOne(progress);
    expect(progress.some((p) => p.stage === 'database' && p.fraction > 0 && p.fraction < 0.5)).toBe(true);
    expect(progress.some((p) => p.stage === 'files')).toBe(true);
    expect(readdirSync(dir)).toEqual(['hearth-backup.tar.gz']);
    expect(statSync(archivePath).mode & 0o077).toBe(0);

    const entries = await readEntries(archivePath);
    const paths = entries.map((e) => e.path);
    expect(paths[0]).toBe('hearth.sqlite3');
    expect(paths.at(-1)).toBe('manifest.json');
    expect(paths).toContain(`media/${mediaKey}`);
    expect(paths).toContain('tls/ca.pem');
    expect(paths).toContain('tls/ca-key.pem');
    expect(paths.some((p) => p.includes('-wal') || p.includes('-shm') || p.startsWith('uploads/'))).toBe(false);
    expect(result.manifest.schemaVersion).toBe(knownSchemaVersion());
    expect(result.manifest.files.map((f) => f.path)).toEqual(paths.slice(0, -1));

    const summary = await checkArchive(archivePath);
    expect(summary).toMatchObject({ formatVersion: 1, schemaVersion: knownSchemaVersion(), files: paths.length - 1 });

    const target = join(dir, 'restored');
    const restoreProgress: DataProgressUpdate[] = [];
    const restored = await restoreDataDir({ archivePath, dataDir: target, onProgress: (p) => restoreProgress.push(p) });
    expect(restored.dataDir).toBe(target);
    expectMonotonicToOne(restoreProgress);
    expect(readdirSync(dir).sort()).toEqual(['hearth-backup.tar.gz', 'restored']);

    const db = new Database(join(target, 'hearth.sqlite3'), { readonly: true });
    try {
      expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      const ids = new Set((db.prepare('SELECT id FROM statuses').safeIntegers(true).pluck().all() as bigint[]).map(String));
      const missing = [...before].filter((id) => !ids.has(id));
      expect(missing, 'writes acknowledged before the backup began').toEqual([]);
      expect(ids.has(withMedia.body.id as string)).toBe(true);
    } finally {
      db.close();
    }
    expect(readFileSync(join(target, 'media', ...mediaKey.split('/'))).equals(readFileSync(join(inst.dataDir, 'media', ...mediaKey.split('/'))))).toBe(true);

    const again = await startInstance({ dataDir: target, httpsPort: 0 });
    try {
      // The same authority: devices that trust it keep working.
      expect(again.app.https?.material.madeAuthority).toBe(false);
      const client = new TestClient(again.url, alice.token);
      const status = await client.get(`/api/v1/statuses/${withMedia.body.id as string}`);
      expect(status.status, status.text).toBe(200);
      expect(status.body.content).toContain('a picture to keep');
      const attachment = status.body.media_attachments[0];
      expect(attachment.id).toBe(media.body.id);
      expect((await download(attachment.url as string)).equals(mediaBytes)).toBe(true);
      const last = await client.get(`/api/v1/statuses/${[...before].at(-1) as string}`);
      expect(last.status).toBe(200);
    } finally {
      await again.close();
    }
  });
});
