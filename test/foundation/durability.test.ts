import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, withFullDurability, withRelaxedDurability, type Db } from '../../api/db/connection.js';
import { derivedTransaction } from '../../api/db/repos/feeds.js';

/**
 * Commits under `withRelaxedDurability` (handling of a queued activity, derived rows) run with
 * synchronous=NORMAL for that commit only, across awaits, and the connection is back at FULL after;
 * `withFullDurability` inside restores FULL; a nested transaction leaves it to the enclosing one.
 */
describe('relaxed and full durability of commits', () => {
  let dir: string;
  let db: Db;
  const level = () => Number(db.raw.prepare('PRAGMA synchronous').pluck().get());
  const count = () => db.query<{ n: number }>('SELECT count(*) AS n FROM t').get()?.n;
  /** The synchronous level seen inside a transaction that writes a row. */
  const commitLevel = () =>
    db.transaction(() => {
      db.exec("INSERT INTO t (v) VALUES ('x')");
      return level();
    });

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-durability-'));
    db = openDatabase(join(dir, 'd.sqlite3'));
    db.exec('CREATE TABLE t (v TEXT)');
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a plain commit is fully synchronous', () => {
    expect(level()).toBe(2);
    expect(commitLevel()).toBe(2);
  });

  it('relaxed commits do not wait for the disk, also after an await, and FULL comes back', async () => {
    const seen = await withRelaxedDurability(async () => {
      const first = commitLevel();
      await new Promise((r) => setTimeout(r, 5));
      const later = await new Promise<number>((resolve) => setImmediate(() => resolve(commitLevel())));
      return [first, later, withFullDurability(commitLevel)];
    });
    expect(seen).toEqual([1, 1, 2]);
    expect(level()).toBe(2);
    expect(commitLevel()).toBe(2);
    expect(count()).toBe(5);
  });

  it('derived transactions are relaxed; inside another transaction the enclosing commit decides', () => {
    expect(derivedTransaction(db, () => level())).toBe(1);
    expect(db.transaction(() => derivedTransaction(db, () => level()))).toBe(2);
    expect(level()).toBe(2);
  });

  it('a failed relaxed transaction rolls back and still restores FULL', () => {
    const before = count();
    expect(() =>
      withRelaxedDurability(() =>
        db.transaction(() => {
          db.exec("INSERT INTO t (v) VALUES ('y')");
          throw new Error('boom');
        }),
      ),
    ).toThrow('boom');
    expect(level()).toBe(2);
    expect(count()).toBe(before);
  });
});
