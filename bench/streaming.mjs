// Issue 6 benchmark: the streaming API with 1,000 connected WebSocket clients, half on the `user`
// stream (500 users who follow the poster) and half on `public`. It measures the delay from
// `POST /api/v1/statuses` returning to each client receiving the `update` event (p50/p99 over
// every delivery), and the server's resident memory per connected client. The clients run in a
// worker process (this file, forked), so that they share no event loop with the poster or the
// server; process.hrtime is the machine's monotonic clock, the same in every process.
// BENCH_STREAM_CLIENTS=1000, BENCH_STREAM_POSTS=40 and BENCH_STREAM_WORKERS=1 change the set-up.
import { execFileSync, fork } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import WebSocket from 'ws';
import { fmt, freshDataDir, hearth, rssMiB, startHearth, stop } from './lib/procs.mjs';

const CLIENTS = Number(process.env.BENCH_STREAM_CLIENTS ?? 1000);
const POSTS = Number(process.env.BENCH_STREAM_POSTS ?? 40);
// One client process by default: on a small machine, more of them mostly compete with the server for CPU.
const WORKERS = Number(process.env.BENCH_STREAM_WORKERS ?? 1);
/** Time between posts: every delivery of one post is done before the next. */
const SPACING_MS = 150;

function loadAverage() {
  return execFileSync('uptime', { encoding: 'utf8' }).trim().replace(/^.*load average:\s*/, '');
}

const id = (ms, seq) => (BigInt(ms) << 16n) | BigInt(seq);

/**
 * Seeds `n` listener users who follow the poster, each with a token (the rows the server writes
 * itself: accounts, users, tokens, follows, a complete feed state). Returns their tokens.
 */
function seedListeners(dbFile, posterUsername, n) {
  const db = new Database(dbFile);
  db.defaultSafeIntegers(true);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;');
  const tokens = [];
  try {
    const poster = db.prepare('SELECT id FROM accounts WHERE username = ? AND domain IS NULL').get(posterUsername);
    const passwordHash = db.prepare('SELECT password_hash FROM users WHERE account_id = ?').get(poster.id).password_hash;
    const at = Date.now() - 60_000;
    const insertAccount = db.prepare('INSERT INTO accounts (id, username, following_count, created_at, updated_at) VALUES (?, ?, 1, ?, ?)');
    const insertUser = db.prepare('INSERT INTO users (id, account_id, email, password_hash, confirmed_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
    const insertToken = db.prepare('INSERT INTO oauth_tokens (id, user_id, token_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?)');
    const insertFollow = db.prepare('INSERT INTO follows (id, account_id, target_account_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?)');
    const insertFeed = db.prepare('INSERT INTO feed_state (account_id, regenerating, built_at) VALUES (?, 0, ?)');
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const accountId = id(at, 4 * i + 1);
        const userId = id(at, 4 * i + 2);
        insertAccount.run(accountId, `listener${i}`, at, at);
        insertUser.run(userId, accountId, `listener${i}@bench.test`, passwordHash, at, at, at);
        const token = randomBytes(32).toString('base64url');
        insertToken.run(id(at, 4 * i + 3), userId, createHash('sha256').update(token).digest('hex'), 'read write', at);
        insertFollow.run(id(at, 4 * i + 4), accountId, poster.id, at, at);
        insertFeed.run(accountId, at);
        tokens.push(token);
      }
      db.prepare('UPDATE accounts SET followers_count = ? WHERE id = ?').run(n, poster.id);
    })();
  } finally {
    db.close();
  }
  return tokens;
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

export async function run() {
  const dataDir = freshDataDir('streaming');
  hearth(['account', 'create', '--data', dataDir, '--username', 'poster', '--password', 'poster-password-1', '--role', 'owner']);
  const token = hearth(['token', '--data', dataDir, '--username', 'poster', '--scopes', 'read write']);
  const userClients = Math.floor(CLIENTS / 2);
  const tokens = seedListeners(join(dataDir, 'hearth.sqlite3'), 'poster', userClients);
  const server = await startHearth(dataDir);
  const workers = [];
  try {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const postStatus = async (n) => {
      const res = await fetch(`${server.url}/api/v1/statuses`, { method: 'POST', headers, body: JSON.stringify({ status: `Streaming benchmark post ${n}: a few words about the weather, with a #hashtag and a link https://example.org/page/${n}` }) });
      const body = await res.json();
      const returned = process.hrtime.bigint();
      if (res.status !== 200) throw new Error(`POST answered ${res.status}: ${JSON.stringify(body)}`);
      return { id: body.id, returned };
    };
    // Warm up (code paths, caches), then the idle memory.
    for (let i = 0; i < 5; i++) await postStatus(`warm-up ${i}`);
    await new Promise((r) => setTimeout(r, 1000));
    const idle = rssMiB(server.child.pid);

    // The clients: `user` for each listener, `public` with the same tokens.
    const wsBase = `${server.url.replace(/^http/, 'ws')}/api/v1/streaming`;
    const plan = [];
    for (let i = 0; i < CLIENTS; i++) plan.push({ token: tokens[i % userClients], stream: i < userClients ? 'user' : 'public' });
    const started = Date.now();
    for (let w = 0; w < WORKERS; w++) {
      const child = fork(fileURLToPath(import.meta.url), [], { env: { ...process.env, HEARTH_STREAM_WORKER: '1' }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      const part = plan.filter((_, i) => i % WORKERS === w);
      workers.push(child);
      child.send({ type: 'connect', url: wsBase, clients: part });
    }
    await Promise.all(workers.map((child) => new Promise((resolve, reject) => {
      child.once('message', (m) => (m.type === 'ready' ? resolve() : reject(new Error(JSON.stringify(m)))));
      child.once('exit', (code) => reject(new Error(`worker exited (${code})`)));
    })));
    const connectSeconds = (Date.now() - started) / 1000;
    await new Promise((r) => setTimeout(r, 1500));
    const connected = rssMiB(server.child.pid);

    const posted = new Map();
    const postLatency = [];
    for (let n = 0; n < POSTS; n++) {
      const before = process.hrtime.bigint();
      const { id: statusId, returned } = await postStatus(n);
      postLatency.push(Number(returned - before) / 1e6);
      posted.set(statusId, returned);
      await new Promise((r) => setTimeout(r, SPACING_MS));
    }
    await new Promise((r) => setTimeout(r, 500));
    const afterPosts = rssMiB(server.child.pid);

    const results = await Promise.all(workers.map((child) => new Promise((resolve) => {
      child.once('message', (m) => resolve(m));
      child.send({ type: 'report' });
    })));
    const delays = { user: [], public: [] };
    let missing = 0;
    let closed = 0;
    for (const r of results) {
      closed += r.closed;
      for (const [stream, arrivals] of Object.entries(r.arrivals)) {
        for (const [statusId, times] of Object.entries(arrivals)) {
          const returned = posted.get(statusId);
          if (returned === undefined) continue;
          for (const t of times) delays[stream].push(Number(BigInt(t) - returned) / 1e6);
        }
      }
    }
    const expected = POSTS * CLIENTS;
    const all = [...delays.user, ...delays.public].sort((a, b) => a - b);
    missing = expected - all.length;
    const row = (name, list) => {
      const sorted = [...list].sort((a, b) => a - b);
      return { stream: name, deliveries: sorted.length, p50_ms: fmt(percentile(sorted, 50), 2), p99_ms: fmt(percentile(sorted, 99), 2), max_ms: fmt(sorted[sorted.length - 1], 2) };
    };
    const postSorted = [...postLatency].sort((a, b) => a - b);
    console.log(`${CLIENTS} clients (${userClients} on user, ${CLIENTS - userClients} on public) connected in ${fmt(connectSeconds, 1)} s; ${POSTS} posts`);
    console.table([row('user', delays.user), row('public', delays.public), row('all', all)]);
    console.log(`POST /api/v1/statuses with ${userClients} followers: p50 ${fmt(percentile(postSorted, 50), 2)} ms, p99 ${fmt(percentile(postSorted, 99), 2)} ms`);
    console.log(`missing deliveries: ${missing}; connections closed by the server: ${closed}`);
    console.log(
      `server memory: idle ${fmt(idle)} MiB, ${CLIENTS} clients ${fmt(connected)} MiB (${fmt(((connected - idle) * 1024) / CLIENTS, 1)} KiB per client), after posts ${fmt(afterPosts)} MiB`,
    );
    console.log(`load average: ${loadAverage()}`);
    console.log('targets: p99 ≤ 50 ms from POST returning to the event arriving; ≤ 100 KiB of server memory per connected client');
  } finally {
    for (const child of workers) child.kill('SIGTERM');
    await stop(server.child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Worker: opens its share of the clients, records when each `update` arrives, reports on request. */
async function worker() {
  const arrivals = { user: {}, public: {} };
  const sockets = [];
  let closed = 0;
  process.on('message', async (m) => {
    if (m.type === 'connect') {
      const connect = ({ token, stream }) =>
        new Promise((resolve, reject) => {
          const ws = new WebSocket(`${m.url}?stream=${stream}`, { headers: { authorization: `Bearer ${token}` }, perMessageDeflate: false });
          ws.on('message', (data) => {
            const at = process.hrtime.bigint();
            // Kept light (the clients are the instrument): the frame's bytes are searched, and
            // only the few bytes holding the status id become a string.
            if (data.indexOf('"event":"update"') < 0) return;
            const from = data.indexOf('"payload":"');
            if (from < 0) return;
            // The status id opens the payload: {"id":"…" (escaped inside the payload string).
            const match = /^"payload":"\{\\"id\\":\\"(\d+)\\"/.exec(data.toString('latin1', from, from + 48));
            if (!match) return;
            const byStatus = arrivals[stream];
            (byStatus[match[1]] ??= []).push(at.toString());
          });
          ws.once('open', resolve);
          ws.once('error', reject);
          ws.once('close', () => closed++);
          sockets.push(ws);
        });
      // Connect in small batches: a thousand simultaneous handshakes are not what is measured.
      for (let i = 0; i < m.clients.length; i += 50) await Promise.all(m.clients.slice(i, i + 50).map(connect));
      process.send({ type: 'ready' });
    } else if (m.type === 'report') {
      process.send({ type: 'report', arrivals, closed }, () => {
        for (const ws of sockets) ws.terminate();
        process.exit(0);
      });
    }
  });
}

if (process.env.HEARTH_STREAM_WORKER === '1') await worker();
