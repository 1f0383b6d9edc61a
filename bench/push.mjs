// Issue 15 benchmark: Web Push. One user has 100 push subscriptions (100 tokens, as 100 devices
// or apps would; half of them standard aes128gcm, half the legacy aesgcm draft), all to a push
// service on loopback in this process. Another user favourites the user's posts one after the
// other; each favourite is a notification that becomes 100 encrypted push requests. The figure is
// the delay from the favourite's POST being sent to each push request arriving at the push
// service (p50/p99/max over every push), i.e. notification → push request sent, request included.
// BENCH_PUSH_SUBSCRIPTIONS=100 and BENCH_PUSH_ROUNDS=30 change the set-up; BENCH_PUSH_ROUNDS_SHOW=1
// also prints when the last push of each round arrived. The server's CPU time per push is printed
// too: on a busy machine the delays grow with everything else that runs, that figure does not.
import { createDecipheriv, createECDH, createHash, createHmac, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fmt, freshDataDir, hearth, loadAverage, rssMiB, startHearth, stop } from './lib/procs.mjs';

const SUBSCRIPTIONS = Number(process.env.BENCH_PUSH_SUBSCRIPTIONS ?? 100);
const ROUNDS = Number(process.env.BENCH_PUSH_ROUNDS ?? 30);
/** Pause between rounds, once every push of the previous one has arrived. */
const SPACING_MS = 100;

/** CPU time a process has used so far (user + system), in ms, from /proc (clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

const id = (ms, seq) => (BigInt(ms) << 16n) | BigInt(seq);
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** Seeds `n` tokens with the push scope for `username` (rows as the server writes them); returns them. */
function seedTokens(dbFile, username, n) {
  const db = new Database(dbFile);
  db.defaultSafeIntegers(true);
  db.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON;');
  const tokens = [];
  try {
    const user = db.prepare('SELECT users.id FROM users JOIN accounts ON accounts.id = users.account_id WHERE accounts.username = ? AND accounts.domain IS NULL').get(username);
    const at = Date.now() - 60_000;
    const insert = db.prepare('INSERT INTO oauth_tokens (id, user_id, token_hash, scopes, created_at) VALUES (?, ?, ?, ?, ?)');
    db.transaction(() => {
      for (let i = 0; i < n; i++) {
        const token = randomBytes(32).toString('base64url');
        insert.run(id(at, i + 1), user.id, createHash('sha256').update(token).digest('hex'), 'read write follow push', at);
        tokens.push(token);
      }
    })();
  } finally {
    db.close();
  }
  return tokens;
}

const hmac = (key, ...data) => {
  const h = createHmac('sha256', key);
  for (const d of data) h.update(d);
  return h.digest();
};

/** Opens one aes128gcm push (RFC 8291), to check that what was measured is a readable push. */
function openStandard(body, device) {
  const salt = body.subarray(0, 16);
  const idLength = body[20];
  const senderKey = body.subarray(21, 21 + idLength);
  const sealed = body.subarray(21 + idLength);
  const ua = device.ecdh.getPublicKey();
  const prkKey = hmac(device.auth, device.ecdh.computeSecret(senderKey));
  const ikm = hmac(prkKey, Buffer.from('WebPush: info\0'), ua, senderKey, Buffer.from([1]));
  const prk = hmac(salt, ikm);
  const key = hmac(prk, Buffer.from('Content-Encoding: aes128gcm\0\x01')).subarray(0, 16);
  const nonce = hmac(prk, Buffer.from('Content-Encoding: nonce\0\x01')).subarray(0, 12);
  const decipher = createDecipheriv('aes-128-gcm', key, nonce);
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  const plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - 16)), decipher.final()]);
  return JSON.parse(plain.subarray(0, plain.lastIndexOf(2)).toString('utf8'));
}

export async function run() {
  const dataDir = freshDataDir('push');
  hearth(['account', 'create', '--data', dataDir, '--username', 'alice', '--password', 'alice-password-1', '--role', 'owner']);
  hearth(['account', 'create', '--data', dataDir, '--username', 'bob', '--password', 'bob-password-12']);
  const aliceToken = hearth(['token', '--data', dataDir, '--username', 'alice', '--scopes', 'read write']);
  const bobToken = hearth(['token', '--data', dataDir, '--username', 'bob', '--scopes', 'read write']);
  const tokens = seedTokens(join(dataDir, 'hearth.sqlite3'), 'alice', SUBSCRIPTIONS);

  // The push service: records when each request arrives, per device, and answers 201.
  const arrivals = [];
  const bodies = new Map();
  const service = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      arrivals.push({ at: process.hrtime.bigint(), device: req.url, encoding: req.headers['content-encoding'] });
      if (!bodies.has(req.url)) bodies.set(req.url, Buffer.concat(chunks));
      res.statusCode = 201;
      res.end();
    });
  });
  await new Promise((resolve) => service.listen(0, '127.0.0.1', resolve));
  const pushBase = `http://127.0.0.1:${service.address().port}`;

  // The loopback test mode: push requests may go to a plain http service on loopback.
  const server = await startHearth(dataDir, ['--federation-allow-loopback']);
  try {
    const api = async (method, path, token, body) => {
      const res = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = await res.json();
      if (res.status !== 200) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
      return json;
    };
    const devices = new Map();
    for (let i = 0; i < tokens.length; i++) {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const auth = randomBytes(16);
      const path = `/push/device-${i}`;
      devices.set(path, { ecdh, auth });
      await api('POST', '/api/v1/push/subscription', tokens[i], {
        subscription: { endpoint: `${pushBase}${path}`, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: auth.toString('base64url') }, standard: i % 2 === 0 },
        data: { alerts: { favourite: true, mention: true } },
      });
    }
    const posts = [];
    for (let n = 0; n < ROUNDS + 3; n++) posts.push((await api('POST', '/api/v1/statuses', aliceToken, { status: `post ${n} for the push benchmark` })).id);

    /** One favourite; resolves with each push's delay (ms) from the POST being sent. */
    const round = async (statusId) => {
      const from = arrivals.length;
      const sent = process.hrtime.bigint();
      await api('POST', `/api/v1/statuses/${statusId}/favourite`, bobToken);
      const returned = process.hrtime.bigint();
      const deadline = Date.now() + 10_000;
      while (arrivals.length - from < SUBSCRIPTIONS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      const got = arrivals.slice(from);
      return { delays: got.map((a) => Number(a.at - sent) / 1e6), request: Number(returned - sent) / 1e6, missing: SUBSCRIPTIONS - got.length };
    };
    // Warm up: code paths, the VAPID token of the push service, connections.
    for (let n = 0; n < 3; n++) await round(posts[ROUNDS + n]);
    const idle = rssMiB(server.child.pid);
    const cpuBefore = cpuMs(server.child.pid);
    const delays = [];
    const lasts = [];
    const requests = [];
    let missing = 0;
    for (let n = 0; n < ROUNDS; n++) {
      const r = await round(posts[n]);
      delays.push(...r.delays);
      lasts.push(Math.max(...r.delays));
      requests.push(r.request);
      missing += r.missing;
      await new Promise((r) => setTimeout(r, SPACING_MS));
    }
    if (process.env.BENCH_PUSH_ROUNDS_SHOW) console.log('last push of each round (ms):', lasts.map((x) => fmt(x, 0)).join(' '));
    const cpu = cpuMs(server.child.pid) - cpuBefore;
    const after = rssMiB(server.child.pid);
    const sorted = delays.sort((a, b) => a - b);
    const sortedRequests = requests.sort((a, b) => a - b);
    // A standard push must open with its device's keys (what was measured is readable).
    const standard = [...bodies].find(([p]) => arrivals.some((a) => a.device === p && a.encoding === 'aes128gcm'));
    const sample = standard ? openStandard(standard[1], devices.get(standard[0])) : null;
    console.log(`${SUBSCRIPTIONS} subscriptions of one user (half aes128gcm, half aesgcm), ${ROUNDS} favourites, ${delays.length} pushes received, ${missing} missing`);
    console.table([
      {
        measure: 'favourite POST sent → push request received',
        p50_ms: fmt(percentile(sorted, 50), 1),
        p99_ms: fmt(percentile(sorted, 99), 1),
        max_ms: fmt(sorted[sorted.length - 1], 1),
      },
      {
        measure: 'favourite POST (answer)',
        p50_ms: fmt(percentile(sortedRequests, 50), 1),
        p99_ms: fmt(percentile(sortedRequests, 99), 1),
        max_ms: fmt(sortedRequests[sortedRequests.length - 1], 1),
      },
    ]);
    // The server's own CPU time, whatever else runs on the machine: a round needs at least this.
    console.log(`server CPU: ${fmt(cpu / ROUNDS, 1)} ms per favourite and its ${SUBSCRIPTIONS} pushes (${fmt(cpu / Math.max(1, delays.length), 2)} ms per push)`);
    console.log(`a push opened with its device's keys: ${sample ? `${sample.notification_type}, "${sample.title}"` : 'none found'}`);
    console.log(`server memory: ${fmt(idle)} MiB after the warm-up, ${fmt(after)} MiB after the rounds; load average: ${loadAverage()}`);
    console.log('target: p99 ≤ 200 ms from notification to push request sent, with 100 subscriptions');
  } finally {
    await stop(server.child);
    service.closeAllConnections();
    await new Promise((resolve) => service.close(resolve));
    rmSync(dataDir, { recursive: true, force: true });
  }
}
