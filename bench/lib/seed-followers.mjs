// Seeds remote followers of a local account straight into a data directory's SQLite file, with the
// rows federation writes itself (api/core/federation/remote-accounts.ts, follows): remote accounts
// with inbox, shared inbox and followers URLs, a follow each, and the counters.
import Database from 'better-sqlite3';

const id = (ms, seq = 0) => (BigInt(ms) << 16n) | BigInt(seq);

/**
 * `instances` remote instances, each reached at `http://<host(i)>:<port>` with a shared inbox at
 * `/inbox`, each with `perInstance` accounts following the local account `username`.
 */
export function seedRemoteFollowers(dbFile, { username, instances, perInstance, host, port }) {
  const db = new Database(dbFile);
  db.defaultSafeIntegers(true);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;');
  try {
    const target = db.prepare('SELECT id FROM accounts WHERE username = ? AND domain IS NULL').get(username);
    if (!target) throw new Error(`no local account ${username}`);
    const at = Date.now() - 30 * 86_400_000;
    const insertAccount = db.prepare(
      `INSERT INTO accounts (id, username, domain, uri, url, display_name, inbox_url, shared_inbox_url, followers_url, following_count, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`,
    );
    const insertFollow = db.prepare('INSERT INTO follows (id, account_id, target_account_id, uri, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < instances; i++) {
        const origin = `http://${host(i)}:${port}`;
        const domain = `${host(i)}:${port}`;
        for (let j = 0; j < perInstance; j++) {
          const name = `follower${j}`;
          const uri = `${origin}/users/${name}`;
          // One millisecond per account, two sequence numbers: ids unique and time-sortable.
          const ms = at + i * perInstance + j;
          const accountId = id(ms, 1);
          insertAccount.run(accountId, name, domain, uri, `${origin}/@${name}`, `Follower ${j} of ${domain}`, `${uri}/inbox`, `${origin}/inbox`, `${uri}/followers`, ms, ms);
          insertFollow.run(id(ms, 2), accountId, target.id, `${uri}#follows/1`, ms, ms);
        }
      }
      db.prepare('UPDATE accounts SET followers_count = followers_count + ? WHERE id = ?').run(instances * perInstance, target.id);
    })();
  } finally {
    db.close();
  }
}
