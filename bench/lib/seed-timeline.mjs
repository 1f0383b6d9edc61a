// Seeds a home timeline straight into a data directory's SQLite file, fast enough for a million
// statuses: one prepared INSERT per table, big transactions, synchronous=OFF only while seeding.
// The rows match what the server writes itself (api/db/migrations, api/core/timelines): remote
// authors the reader follows, their statuses (some boosts, some unlisted or followers-only), one
// conversation per original status, a home_feed row per status and a complete feed_state row.
import Database from 'better-sqlite3';

export const AUTHORS = 200;
/** Spacing of the seeded statuses in time; the newest is an hour old. */
const STEP_MS = 30_000;
const BATCH = 20_000;

const id = (ms, seq = 0) => (BigInt(ms) << 16n) | BigInt(seq);

/**
 * Grows the reader's home timeline to `total` statuses. The history grows backwards in time (the
 * newest statuses stay the same), so that pages measured at different sizes show the same
 * statuses and differ only by the size of the tables beneath them.
 */
export function seedHomeTimeline(dbFile, { readerUsername, total }) {
  const db = new Database(dbFile);
  db.defaultSafeIntegers(true);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA synchronous = OFF;');
  try {
    const reader = db.prepare('SELECT id FROM accounts WHERE username = ? AND domain IS NULL').get(readerUsername);
    if (!reader) throw new Error(`no local account ${readerUsername}`);
    const readerId = reader.id;
    const authors = ensureAuthors(db, readerId);
    const have = Number(db.prepare('SELECT count(*) AS n FROM home_feed h JOIN statuses s ON s.id = h.status_id WHERE h.account_id = ? AND s.local = 0').get(readerId).n);
    // Position k (0 = newest) was posted at newest - k * STEP_MS; the newest stays where it was.
    const seeded = db.prepare("SELECT max(created_at) AS t FROM statuses WHERE uri LIKE 'https://peer%'").get().t;
    const newest = seeded === null ? Date.now() - 3_600_000 : Number(seeded);
    const at = (k) => newest - k * STEP_MS;
    // k = position from the newest (0); existing rows are k < have. New ones are older: k ≥ have.
    const insertConversation = db.prepare('INSERT INTO conversations (id, created_at) VALUES (?, ?)');
    const insertStatus = db.prepare(
      `INSERT INTO statuses (id, account_id, local, uri, url, visibility, text, content, language, reblog_of_id, conversation_id,
         replies_count, reblogs_count, favourites_count, created_at, updated_at)
       VALUES (?, ?, 0, ?, ?, ?, '', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const insertFeed = db.prepare('INSERT INTO home_feed (account_id, status_id) VALUES (?, ?)');
    // The search index holds every original status (as the server's indexing writes it).
    const insertText = db.prepare('INSERT INTO statuses_fts (rowid, body) VALUES (?, ?)');
    // Oldest first, so that a boost's original (older, larger k) is already there.
    const oldestK = total - 1;
    const firstNewK = have;
    for (let hi = oldestK; hi >= firstNewK; hi -= BATCH) {
      const lo = Math.max(firstNewK, hi - BATCH + 1);
      db.transaction(() => {
        for (let k = hi; k >= lo; k--) {
          const author = authors[k % AUTHORS];
          const statusId = id(at(k));
          const uri = `https://${author.domain}/users/${author.username}/statuses/${statusId}`;
          // Every tenth status boosts an original about 500 positions older (when that one exists).
          const boostOf = k % 10 === 5 && k + 503 <= oldestK ? id(at(k + 503)) : null;
          if (boostOf !== null) {
            insertStatus.run(statusId, author.id, `${uri}/activity`, null, 'public', '', null, boostOf, null, 0, 0, 0, at(k), at(k));
          } else {
            const conversationId = id(at(k), 1);
            insertConversation.run(conversationId, at(k));
            const visibility = k % 23 === 1 ? 'private' : k % 7 === 3 ? 'unlisted' : 'public';
            const content =
              `<p>Status ${k} from ${author.username}: a few words about the weather, cats and the garden, ` +
              `with a link <a href="https://example.org/articles/${k}" rel="nofollow noopener" target="_blank">` +
              `<span class="invisible">https://</span><span class="">example.org/articles/${k}</span><span class="invisible"></span></a>` +
              ` and a tag <a href="https://${author.domain}/tags/garden" class="mention hashtag" rel="tag">#<span>garden</span></a></p>`;
            insertStatus.run(statusId, author.id, uri, `https://${author.domain}/@${author.username}/${statusId}`, visibility, content, 'en', null, conversationId, k % 5, k % 3, k % 11, at(k), at(k));
            insertText.run(statusId, `Status ${k} from ${author.username}: a few words about the weather, cats and the garden, with a link example.org/articles/${k} and a tag #garden`);
          }
          insertFeed.run(readerId, statusId);
        }
      })();
    }
    const count = db.prepare('SELECT count(*) AS n FROM statuses WHERE account_id = ?');
    const updateCount = db.prepare('UPDATE accounts SET statuses_count = ?, last_status_at = ? WHERE id = ?');
    db.transaction(() => {
      for (const a of authors) updateCount.run(count.get(a.id).n, newest, a.id);
      db.prepare('INSERT OR REPLACE INTO feed_state (account_id, regenerating, built_at) VALUES (?, 0, ?)').run(readerId, Date.now());
      // Everything seeded is indexed: the start-up back-fill of the index has nothing to do.
      db.prepare("INSERT OR REPLACE INTO settings (key, value) VALUES ('search.indexed_through', ?)").run(JSON.stringify(String(id(newest))));
    })();
  } finally {
    db.exec('PRAGMA synchronous = FULL');
    db.close();
  }
}

/** The 200 remote authors the reader follows, created on first use. */
function ensureAuthors(db, readerId) {
  const existing = db.prepare("SELECT id, username, domain FROM accounts WHERE username LIKE 'author%' AND domain IS NOT NULL ORDER BY username").all();
  if (existing.length === AUTHORS) {
    const byName = new Map(existing.map((a) => [a.username, a]));
    return Array.from({ length: AUTHORS }, (_, i) => byName.get(`author${i}`));
  }
  const at = Date.now() - 400 * 86_400_000;
  const insertAccount = db.prepare(
    `INSERT INTO accounts (id, username, domain, uri, url, display_name, note, inbox_url, shared_inbox_url, followers_url,
       followers_count, following_count, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertFollow = db.prepare('INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
  const authors = [];
  db.transaction(() => {
    for (let i = 0; i < AUTHORS; i++) {
      const domain = `peer${i % 20}.example`;
      const username = `author${i}`;
      const accountId = id(at + i, 0);
      const uri = `https://${domain}/users/${username}`;
      insertAccount.run(
        accountId, username, domain, uri, `https://${domain}/@${username}`, `Author Number ${i} 🌱`,
        '<p>Writes about gardens, weather and the odd cat. Lives somewhere with a long winter.</p>',
        `${uri}/inbox`, `https://${domain}/inbox`, `${uri}/followers`, 10 + i, 20 + i, at, at,
      );
      insertFollow.run(id(at + i, 1), readerId, accountId, at, at);
      authors.push({ id: accountId, username, domain });
    }
    db.prepare('UPDATE accounts SET following_count = following_count + ? WHERE id = ?').run(AUTHORS, readerId);
  })();
  return authors;
}

/**
 * Makes existing local users follow the reader (rows as a follow writes them, with the counters),
 * so that the reader's posts fan out to their home feeds and mentions notify them.
 */
export function addLocalFollowers(dbFile, { readerUsername, followers }) {
  const db = new Database(dbFile);
  db.defaultSafeIntegers(true);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;');
  try {
    const find = db.prepare('SELECT id FROM accounts WHERE username = ? AND domain IS NULL');
    const readerId = find.get(readerUsername).id;
    const at = Date.now();
    const insertFollow = db.prepare('INSERT OR IGNORE INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    const bump = db.prepare('UPDATE accounts SET following_count = following_count + ? WHERE id = ?');
    const feed = db.prepare('INSERT OR IGNORE INTO feed_state (account_id, regenerating, built_at) VALUES (?, 0, ?)');
    db.transaction(() => {
      followers.forEach((username, i) => {
        const followerId = find.get(username).id;
        if (insertFollow.run(id(at, 100 + i), followerId, readerId, at, at).changes === 1) {
          bump.run(1, followerId);
          db.prepare('UPDATE accounts SET followers_count = followers_count + 1 WHERE id = ?').run(readerId);
        }
        feed.run(followerId, at);
      });
    })();
  } finally {
    db.close();
  }
}
