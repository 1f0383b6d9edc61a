import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackupError, backupDataDir, checkArchive, recoverDataDir, restoreDataDir, type BackupErrorCode } from '../../electron/data/index.js';
import { knownSchemaVersion } from '../../electron/data/manifest.js';
import type { DataProgressUpdate } from '../../electron/data/progress.js';
import { startInstance } from '../helpers/instance.js';
import { picture, upload } from '../media/helpers.js';
import { expectMonotonicToOne, manifestOf, readEntries, snapshotDir, withMatchingManifest, writeEntries, type Entry } from './backup-helpers.js';

/**
 * Everything a restore refuses is refused before anything is replaced: the data directory it
 * would replace is compared file by file before and after, and no temporary folder is left beside it.
 */
describe('restore refusals', () => {
  let dir: string;
  let home: string;
  let existing: string;
  let archives: string;
  let valid: string;
  let entries: Entry[];
  let before: Record<string, string>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-restore-'));
    home = join(dir, 'home');
    existing = join(home, 'hearth');
    archives = join(dir, 'archives');
    mkdirSync(archives, { recursive: true });
    const inst = await startInstance({ dataDir: existing });
    const alice = await inst.createUser('alice');
    const media = await upload(alice.client, await picture(20, 20, 'png'), { type: 'image/png', name: 'a.png' });
    expect(media.status, media.text).toBe(200);
    expect((await alice.client.post('/api/v1/statuses', { status: 'kept', media_ids: [media.body.id] })).status).toBe(200);
    await inst.close();
    // Not the instance's: a restore carries it over.
    writeFileSync(join(existing, 'server.log'), 'a log line\n');
    valid = join(archives, 'valid.tar.gz');
    // With the server stopped, a backup works the same.
    await backupDataDir({ dataDir: existing, archivePath: valid });
    entries = await readEntries(valid);
    before = snapshotDir(existing);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const write = (name: string, list: readonly Entry[]) => {
    const file = join(archives, name);
    writeEntries(file, list);
    return file;
  };

  /** Restore and check both refuse with this code and message, and nothing changed. */
  async function expectRefused(archivePath: string, code: BackupErrorCode, message: RegExp): Promise<void> {
    const err = await restoreDataDir({ archivePath, dataDir: existing }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(BackupError);
    expect((err as BackupError).code).toBe(code);
    expect((err as BackupError).message).toMatch(message);
    expect(snapshotDir(existing)).toEqual(before);
    expect(readdirSync(home)).toEqual(['hearth']);
    await expect(checkArchive(archivePath)).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
  }

  it('checks a good archive: its summary, with progress up to 1', async () => {
    const progress: DataProgressUpdate[] = [];
    const summary = await checkArchive(valid, { onProgress: (p) => progress.push(p) });
    expect(summary).toMatchObject({ formatVersion: 1, schemaVersion: knownSchemaVersion(), files: entries.length - 1 });
    expectMonotonicToOne(progress);
  });

  it('refuses a truncated archive', async () => {
    const bytes = readFileSync(valid);
    const half = join(archives, 'half.tar.gz');
    writeFileSync(half, bytes.subarray(0, Math.floor(bytes.length / 2)));
    await expectRefused(half, 'damaged', /truncated/);
    // Without only its last bytes (the gzip trailer): the data is all there but cannot be trusted.
    const tail = join(archives, 'tail.tar.gz');
    writeFileSync(tail, bytes.subarray(0, bytes.length - 4));
    await expectRefused(tail, 'damaged', /truncated|damaged/);
  });

  it('refuses a file whose hash does not match the manifest', async () => {
    const altered = entries.map((e) => {
      if (!e.path.startsWith('media/')) return e;
      const data = Buffer.from(e.data);
      data[data.length - 1] = (data.at(-1) ?? 0) ^ 0xff;
      return { ...e, data };
    });
    await expectRefused(write('altered.tar.gz', altered), 'damaged', /media\/.* does not match its manifest \(its SHA-256 differs\)/);
  });

  it('refuses entries that climb out, absolute paths and links, before writing anything', async () => {
    const absolute = join(dir, 'absolute-escape.txt');
    for (const evil of ['../escape.txt', 'media/../../escape.txt', absolute]) {
      const list = withMatchingManifest([{ path: evil, data: Buffer.from('gotcha') }, ...entries]);
      await expectRefused(write('evil.tar.gz', list), 'unsafe', /unsafe entry, (a path that climbs out|an absolute path)/);
    }
    expect(existsSync(join(dir, 'escape.txt'))).toBe(false);
    expect(existsSync(join(home, 'escape.txt'))).toBe(false);
    expect(existsSync(absolute)).toBe(false);
    const link = withMatchingManifest([...entries.slice(0, 1), { path: 'media/link', data: Buffer.alloc(0), typeflag: '2' }, ...entries.slice(1)]);
    await expectRefused(write('link.tar.gz', link), 'unsafe', /link or special entry/);
    const stray = withMatchingManifest([...entries, { path: 'elsewhere.txt', data: Buffer.from('x') }]);
    await expectRefused(write('stray.tar.gz', stray), 'unsafe', /outside the data a Hearth backup holds/);
  });

  it('refuses what is not a Hearth backup', async () => {
    const text = join(archives, 'notes.txt');
    writeFileSync(text, 'just some notes\n');
    await expectRefused(text, 'not-archive', /not a Hearth backup/);
    const empty = join(archives, 'empty.tar.gz');
    writeFileSync(empty, '');
    await expectRefused(empty, 'not-archive', /not a Hearth backup/);
    const noManifest = write('plain.tar.gz', [{ path: 'hearth.json', data: Buffer.from('{}') }]);
    await expectRefused(noManifest, 'not-archive', /no manifest/);
  });

  it('refuses a database from a newer schema, and a newer archive format', async () => {
    const file = join(archives, 'newer.sqlite3');
    writeFileSync(file, entries.find((e) => e.path === 'hearth.sqlite3')?.data ?? Buffer.alloc(0));
    const db = new Database(file);
    db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(9999, '9999_future.sql', 0);
    db.close();
    const newer = withMatchingManifest(
      entries.map((e) => (e.path === 'hearth.sqlite3' ? { ...e, data: readFileSync(file) } : e)),
      (m) => void (m.schemaVersion = 9999),
    );
    await expectRefused(write('newer.tar.gz', newer), 'newer-schema', /newer Hearth \(database schema 9999; this version knows up to \d+\)/);
    const format = withMatchingManifest(entries, (m) => void (m.formatVersion = 2));
    await expectRefused(write('format.tar.gz', format), 'unsupported', /archive format 2/);
  });

  it('refuses a database that fails its integrity check', async () => {
    const data = Buffer.from(entries.find((e) => e.path === 'hearth.sqlite3')?.data ?? Buffer.alloc(0));
    // Scribble over the third page (a b-tree page of some table or index).
    data.fill(0xa5, 2 * 4096, 2 * 4096 + 200);
    const broken = withMatchingManifest(entries.map((e) => (e.path === 'hearth.sqlite3' ? { ...e, data } : e)));
    await expectRefused(write('broken.tar.gz', broken), 'damaged', /database in the backup/);
  });

  it('refuses a data directory that is a symbolic link, a folder of other things, or holds the archive', async () => {
    const link = join(home, 'link');
    symlinkSync(existing, link);
    const err = await restoreDataDir({ archivePath: valid, dataDir: link }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'invalid-target', message: expect.stringMatching(/symbolic link/) });
    expect(readlinkSync(link)).toBe(existing);
    rmSync(link);
    expect(snapshotDir(existing)).toEqual(before);

    const documents = join(dir, 'documents');
    mkdirSync(documents);
    writeFileSync(join(documents, 'letter.txt'), 'dear');
    await expect(restoreDataDir({ archivePath: valid, dataDir: documents })).rejects.toMatchObject({ code: 'invalid-target', message: expect.stringMatching(/not a Hearth data directory/) });
    expect(readdirSync(documents)).toEqual(['letter.txt']);

    const inside = join(existing, 'copy.tar.gz');
    writeFileSync(inside, readFileSync(valid));
    const withCopy = snapshotDir(existing);
    await expect(restoreDataDir({ archivePath: inside, dataDir: existing })).rejects.toMatchObject({ code: 'invalid-target', message: expect.stringMatching(/inside the data directory/) });
    await expect(backupDataDir({ dataDir: existing, archivePath: join(existing, 'media', 'b.tar.gz') })).rejects.toMatchObject({ code: 'invalid-target' });
    expect(snapshotDir(existing)).toEqual(withCopy);
    rmSync(inside);
    expect(snapshotDir(existing)).toEqual(before);
  });

  it('a backup refused or stopped leaves no archive and no temporary file', async () => {
    await expect(backupDataDir({ dataDir: join(dir, 'nowhere'), archivePath: join(archives, 'x.tar.gz') })).rejects.toMatchObject({ code: 'invalid-target', message: expect.stringMatching(/no Hearth database/) });
    const out = join(dir, 'out');
    mkdirSync(out);
    // Media moved elsewhere through a link would be left out silently: refused instead.
    symlinkSync(dir, join(existing, 'media', 'elsewhere'));
    await expect(backupDataDir({ dataDir: existing, archivePath: join(out, 'linked.tar.gz') })).rejects.toMatchObject({ code: 'unsupported', message: expect.stringMatching(/symbolic link/) });
    rmSync(join(existing, 'media', 'elsewhere'));
    expect(readdirSync(out)).toEqual([]);
    // Stopped while copying the database, then while writing the archive.
    for (const stage of ['database', 'files'] as const) {
      const controller = new AbortController();
      const stopped = backupDataDir({
        dataDir: existing,
        archivePath: join(out, 'stopped.tar.gz'),
        firstStepPages: 1,
        onProgress: (p) => {
          if (p.stage === stage && p.fraction > 0.1) controller.abort();
        },
        signal: controller.signal,
      });
      await expect(stopped).rejects.toMatchObject({ code: 'aborted' });
      expect(readdirSync(out)).toEqual([]);
    }
    expect(readdirSync(home)).toEqual(['hearth']);
    expect(snapshotDir(existing)).toEqual(before);
  });

  it('puts the old data back after a crash between the two renames, and clears leftovers', async () => {
    const aside = join(home, '.hearth.replaced-1700000000000-abcd1234');
    renameSync(existing, aside);
    mkdirSync(join(home, '.hearth.restoring-xyz'));
    mkdirSync(join(home, '.hearth.backup-xyz'));
    const result = await recoverDataDir(existing);
    expect(result.putBack).toBe(true);
    expect(result.removed.sort()).toEqual(['.hearth.backup-xyz', '.hearth.restoring-xyz']);
    expect(readdirSync(home)).toEqual(['hearth']);
    expect(snapshotDir(existing)).toEqual(before);
    expect(await recoverDataDir(existing)).toEqual({ putBack: false, removed: [] });
  });

  it('replaces a data directory with a good archive: the archive’s files, the foreign ones carried over, the old gone', async () => {
    writeFileSync(join(existing, 'media', 'not-in-the-archive.png'), 'old');
    const progress: DataProgressUpdate[] = [];
    const result = await restoreDataDir({ archivePath: valid, dataDir: existing, onProgress: (p) => progress.push(p) });
    expectMonotonicToOne(progress);
    expect(result.carriedOver).toEqual(['server.log']);
    expect(readdirSync(home)).toEqual(['hearth']);
    const after = snapshotDir(existing);
    expect(after['server.log']).toBe(before['server.log']);
    expect(after['media/not-in-the-archive.png']).toBeUndefined();
    for (const file of manifestOf(entries).files) expect(after[file.path], file.path).toBe(`${file.size}:${file.sha256}`);
  });
});
