import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../../api/db/connection.js';
import { changeStamp } from '../../api/db/repos/changes.js';

/**
 * The change stamp that the caches of tokens, entities and timelines are keyed on: read once per
 * synchronous turn (its costly part, another connection's commits), and still exact: this
 * connection's writes move it at once, another connection's by the next turn.
 */
describe('change stamps', () => {
  let dir: string;
  let db: Db;
  let other: Db;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-stamp-'));
    db = openDatabase(join(dir, 'db.sqlite3'));
    db.exec('CREATE TABLE t (x INTEGER)');
    other = openDatabase(join(dir, 'db.sqlite3'));
  });
  afterAll(() => {
    other.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('moves at once when this connection writes, even within one turn', () => {
    const first = changeStamp(db);
    expect(changeStamp(db)).toBe(first);
    db.query('INSERT INTO t (x) VALUES (1)').run();
    const second = changeStamp(db);
    expect(second).not.toBe(first);
    expect(changeStamp(db)).toBe(second);
    db.query('UPDATE t SET x = 2').run();
    expect(changeStamp(db)).not.toBe(second);
  });

  it('moves by the next turn when another connection commits', async () => {
    const before = changeStamp(db);
    other.query('INSERT INTO t (x) VALUES (3)').run();
    // The commit is concurrent with this turn: what the caches keyed on it hold is as of its start.
    expect(changeStamp(db)).toBe(before);
    await null;
    const after = changeStamp(db);
    expect(after).not.toBe(before);
    // And stays put while nothing is written.
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(changeStamp(db)).toBe(after);
  });
});
