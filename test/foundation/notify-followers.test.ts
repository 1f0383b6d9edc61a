import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Db, openDatabase } from '../../api/db/connection.js';
import { migrate } from '../../api/db/migrate.js';
import { localNotifyingFollowers } from '../../api/db/repos/follows.js';

/**
 * The local followers to notify of a new status are looked up for every status created, remote
 * ones included: on a personal instance's database (three users, a local account with 3,000 remote
 * followers, local users following hundreds of remote accounts) the lookup is one probe of the
 * partial index of notifying follows, whatever the author, and finds exactly the local ones.
 */
describe('local followers to notify of a status', () => {
  let dir: string;
  let db: Db;
  let traced: Db;
  const ran: string[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-notify-'));
    db = openDatabase(join(dir, 'hearth.db'));
    migrate(db);
    const at = Date.now();
    const account = db.query('INSERT INTO accounts (id, username, domain, uri, followers_count, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const user = db.query('INSERT INTO users (account_id, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?)');
    const follow = db.query('INSERT INTO follows (account_id, target_account_id, notify, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 1; i <= 3; i++) {
        account.run(i, `local${i}`, null, `https://home.example/users/local${i}`, 3000, at, at);
        user.run(i, 'x', at, at);
      }
      for (let i = 100; i < 3100; i++) {
        account.run(i, `r${i}`, `peer${i % 300}.example`, `https://peer${i % 300}.example/users/r${i}`, 200, at, at);
        // Remote followers of local1 (a remote follow never asks for notifications)...
        follow.run(i, 1, 0, at, at);
        // ...and local users following remote accounts, a few of them with notifications on.
        if (i < 600) follow.run(1, i, i % 10 === 0 ? 1 : 0, at, at);
        if (i < 300) follow.run(2, i, i % 20 === 0 ? 1 : 0, at, at);
      }
      // local2 and local3 follow local1; local3 asked to be notified.
      follow.run(2, 1, 0, at, at);
      follow.run(3, 1, 1, at, at);
    });
    // A second connection that logs the statements it runs (with their parameters filled in).
    traced = new Db(new Database(join(dir, 'hearth.db'), { verbose: (sql) => ran.push(String(sql)) }));
  });
  afterAll(() => {
    traced.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('finds exactly the local followers who asked, for remote and local authors', () => {
    const followers = (id: string) => localNotifyingFollowers(db, id).map((f) => f.account_id).sort();
    expect(followers('200')).toEqual(['1', '2']);
    expect(followers('210')).toEqual(['1']);
    expect(followers('201')).toEqual([]);
    expect(followers('1')).toEqual(['3']);
    expect(followers('2')).toEqual([]);
  });

  it('probes the partial index of notifying follows, never scanning followers or users', () => {
    for (const id of ['1', '200', '201']) {
      ran.length = 0;
      localNotifyingFollowers(traced, id);
      expect(ran.length).toBeGreaterThan(0);
      for (const sql of ran) {
        const plan = db.query<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all().map((r) => r.detail);
        expect(plan.join('\n')).not.toMatch(/SCAN/);
        if (/FROM follows/.test(sql)) expect(plan[0]).toMatch(/^SEARCH f USING INDEX follows_notify \(target_account_id=\?\)/);
      }
    }
  });
});
