import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addInstanceDomain, federatesWith, removeInstanceDomain } from '../../api/core/federation/instance-domains.js';
import type { Deps } from '../../api/core/deps.js';
import { Db, openDatabase } from '../../api/db/connection.js';
import { migrate } from '../../api/db/migrate.js';
import { getSetting, setSetting } from '../../api/db/repos/settings.js';

/**
 * Settings are read several times per inbound activity: they are kept per connection, and still
 * every change is seen at once, whether made through our own code (setSetting) or by another
 * connection (a `hearth` CLI command). The connection under test logs the statements it runs.
 */
describe('settings kept between reads', () => {
  let dir: string;
  let db: Db;
  let cli: Db;
  const ran: string[] = [];
  const settingReads = () => ran.filter((sql) => /FROM settings/.test(sql)).length;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-settings-'));
    const file = join(dir, 'hearth.db');
    migrate(openDatabase(file));
    const raw = new Database(file, { verbose: (sql) => ran.push(String(sql)) });
    raw.exec('PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;');
    db = new Db(raw);
    cli = openDatabase(file);
  });
  afterAll(() => {
    db.close();
    cli.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a setting once, and sees writes through setSetting and by another connection at once', () => {
    setSetting(db, 'test.value', { n: 1 });
    ran.length = 0;
    expect(getSetting(db, 'test.value')).toEqual({ n: 1 });
    expect(getSetting(db, 'test.value')).toEqual({ n: 1 });
    expect(getSetting(db, 'test.value')).toEqual({ n: 1 });
    expect(settingReads()).toBe(1);
    // Each call returns its own value: a caller changing it changes nothing for the next.
    (getSetting<{ n: number }>(db, 'test.value') as { n: number }).n = 99;
    expect(getSetting(db, 'test.value')).toEqual({ n: 1 });

    setSetting(db, 'test.value', { n: 2 });
    expect(getSetting(db, 'test.value')).toEqual({ n: 2 });
    setSetting(cli, 'test.value', { n: 3 });
    expect(getSetting(db, 'test.value')).toEqual({ n: 3 });
    expect(getSetting(db, 'test.missing')).toBeUndefined();
    setSetting(cli, 'test.missing', 'now here');
    expect(getSetting(db, 'test.missing')).toBe('now here');
  });

  it('keeps nothing a rolled-back transaction wrote', () => {
    expect(getSetting(db, 'test.value')).toEqual({ n: 3 });
    expect(() =>
      db.transaction(() => {
        setSetting(db, 'test.value', { n: 4 });
        expect(getSetting(db, 'test.value')).toEqual({ n: 4 });
        throw new Error('roll back');
      }),
    ).toThrow('roll back');
    expect(getSetting(db, 'test.value')).toEqual({ n: 3 });
  });

  it('decides a host once while the domain rules are unchanged, and follows a block made elsewhere at once', () => {
    // The domain rules are rows now (migration 0093); a counter moved by every write, from any
    // connection, tells when to read them again.
    const deps = { db } as unknown as Deps;
    const cliDeps = { db: cli } as unknown as Deps;
    const ruleReads = () => ran.filter((sql) => /FROM instance_domain_blocks/.test(sql)).length;
    addInstanceDomain(deps, 'block', 'blocked.example');
    ran.length = 0;
    for (let i = 0; i < 5; i++) {
      expect(federatesWith(deps, 'peer.example')).toBe(true);
      expect(federatesWith(deps, 'sub.blocked.example')).toBe(false);
    }
    expect(ruleReads()).toBe(1);
    // `hearth domain block peer.example`, from the CLI's own connection.
    addInstanceDomain(cliDeps, 'block', 'peer.example');
    expect(federatesWith(deps, 'peer.example')).toBe(false);
    removeInstanceDomain(deps, 'block', 'peer.example');
    removeInstanceDomain(deps, 'block', 'blocked.example');
    expect(federatesWith(deps, 'peer.example')).toBe(true);
    expect(federatesWith(deps, 'sub.blocked.example')).toBe(true);
    // Allow-list mode, set by another connection.
    addInstanceDomain(cliDeps, 'allow', 'friend.example');
    expect(federatesWith(deps, 'peer.example')).toBe(false);
    expect(federatesWith(deps, 'friend.example')).toBe(true);
  });
});
