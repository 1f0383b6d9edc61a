import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { federatesWith, instanceDomainBlocks, instanceDomains } from '../../api/core/federation/instance-domains.js';
import type { Deps } from '../../api/core/deps.js';
import { openDatabase } from '../../api/db/connection.js';
import { migrate, migrationsDir } from '../../api/db/migrate.js';
import { setSetting } from '../../api/db/repos/settings.js';

/**
 * Migration 0093 moves the domain lists `hearth domain` kept in the settings into the one rule
 * set: each blocked domain becomes a suspension (what a CLI block always did), each allowed domain
 * an allow, and the settings go.
 */
describe('migration 0093: the domain lists move into the rule set', () => {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-0093-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps every block and allow, as suspensions and allows', () => {
    // The migrations before 0093, as a database made before it has them.
    const before = join(dir, 'migrations-before');
    mkdirSync(before);
    for (const file of readdirSync(migrationsDir()).filter((f) => /^\d{4}_/.test(f) && Number(f.slice(0, 4)) < 93)) copyFileSync(join(migrationsDir(), file), join(before, file));
    const db = openDatabase(join(dir, 'hearth.sqlite3'));
    try {
      migrate(db, before);
      setSetting(db, 'federation.domain_blocks', ['blocked.example', '127.0.0.9:7000']);
      setSetting(db, 'federation.domain_allows', ['friend.example']);
      expect(migrate(db).applied).toContain('0093_moderation_rules.sql');

      const deps = { db } as unknown as Deps;
      expect(instanceDomains(deps)).toEqual({ blocked: ['127.0.0.9:7000', 'blocked.example'], allowed: ['friend.example'] });
      expect(instanceDomainBlocks(deps).map((b) => [b.domain, b.severity, b.reject_media, b.reject_reports])).toEqual([
        ['blocked.example', 'suspend', 0, 0],
        ['127.0.0.9:7000', 'suspend', 0, 0],
      ]);
      expect(instanceDomainBlocks(deps).every((b) => /^\d+$/.test(b.id) && b.created_at > Date.now() - 3_600_000)).toBe(true);
      expect(federatesWith(deps, 'sub.blocked.example')).toBe(false);
      expect(federatesWith(deps, 'friend.example')).toBe(true);
      expect(federatesWith(deps, 'stranger.example')).toBe(false);
      expect(db.query<{ n: number }>("SELECT count(*) AS n FROM settings WHERE key LIKE 'federation.domain_%'").get()?.n).toBe(0);
    } finally {
      db.close();
    }
  });
});
