// The rig of the relay benchmark (bench/relay.mjs): one relay (`hearth relay serve`) and one
// instance behind it (`hearth serve --relay`), both from dist, the instance's reader with a seeded
// home timeline of 10,000 statuses, and the peers' process (bench/lib/relay-peers.mjs) whose
// senders post to the instance's public host at the relay.
//
// Addresses: the relay listens on every address at port P, its own domain 127.0.0.1:P (where the
// instance dials its tunnel); the instance's public host is 127.0.9.1:P (its origin
// http://127.0.9.1:P, given by the relay at enrolment); the instance's own port listens on
// 127.0.0.1 only (the paced timeline clients and the benchmark's API calls use it); the senders
// are served at 127.0.3.1. Nothing reaches the instance but through the relay.
import { fileURLToPath } from 'node:url';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { freshDataDir, hearth } from './procs.mjs';
import { nextMessage, spawnPinned } from './paced-load.mjs';
import { seedHomeTimeline } from './seed-timeline.mjs';
import { freePort, sleep, startHearthProc, stopProc } from './relay-procs.mjs';

/** The process being measured runs here (taskset's list syntax), everything else on OTHER_CPUS. */
export const SERVER_CPUS = process.env.BENCH_RELAY_SERVER_CPUS ?? '0';
export const OTHER_CPUS = process.env.BENCH_RELAY_OTHER_CPUS ?? (availableParallelism() > 1 ? `1-${availableParallelism() - 1}` : '0');

const READER = 'reader';
const READER_POSTS = 10;

/** Node flags for a process of `role` in `phase` when BENCH_RELAY_PROFILE=DIR asks for CPU profiles. */
export function profileArgs(phase, role) {
  const dir = process.env.BENCH_RELAY_PROFILE;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, `${phase}-${role}`)}`] : [];
}

/**
 * Makes the rig: the instance's data (reader, token, home timeline), a relay with the instance
 * as its tenant, the instance enrolled (started once with the code, then left running), the
 * reader's public posts, and the peers' process with `senders` actors (their keys are made
 * meanwhile). Resolves to the context every phase uses.
 */
export async function makeRig({ senders }) {
  const peers = spawnPinned(OTHER_CPUS, fileURLToPath(new URL('./relay-peers.mjs', import.meta.url)), [], { HEARTH_RELAY_PEERS: '1' });
  await nextMessage(peers, 'ready');
  const remoteReady = nextMessage(peers, 'remote');
  peers.send({ type: 'remote', host: '127.0.3.1', actors: senders });

  const instanceDir = freshDataDir('relay-instance');
  hearth(['account', 'create', '--data', instanceDir, '--username', READER, '--password', 'reader-password-1', '--role', 'owner']);
  const token = hearth(['token', '--data', instanceDir, '--username', READER, '--scopes', 'read write']);
  seedHomeTimeline(join(instanceDir, 'hearth.sqlite3'), { readerUsername: READER, total: 10_000 });

  const relayPort = await freePort();
  const instancePort = await freePort();
  const ctx = {
    peers,
    relayPort,
    instancePort,
    relayUrl: `http://127.0.0.1:${relayPort}`,
    tenantHost: `127.0.9.1:${relayPort}`,
    inbox: `http://127.0.9.1:${relayPort}/inbox`,
    instanceUrl: `http://127.0.0.1:${instancePort}`,
    headers: { authorization: `Bearer ${token}` },
    relayDir: freshDataDir('relay-relay'),
    instanceDir,
    reader: null,
    readerPosts: [],
    origin: null,
    keysMs: 0,
  };
  ctx.reader = { uri: `http://${ctx.tenantHost}/users/${READER}`, url: `http://${ctx.tenantHost}/@${READER}`, username: READER, host: ctx.tenantHost };

  const relay = await startRelay(ctx, { dir: ctx.relayDir, cpus: OTHER_CPUS, phase: 'setup' });
  const code = hearth(['relay', 'tenant', 'add', '--data', ctx.relayDir, '--host', ctx.tenantHost]);
  const instance = await startInstance(ctx, { dir: instanceDir, cpus: SERVER_CPUS, phase: 'setup', code });
  await waitConnected(instanceDir);
  for (let n = 0; n < READER_POSTS; n++) {
    const res = await fetch(`${ctx.instanceUrl}/api/v1/statuses`, {
      method: 'POST',
      headers: { ...ctx.headers, 'content-type': 'application/json' },
      body: JSON.stringify({ status: `Reader's public post ${n}, for the senders to like and boost`, visibility: 'public' }),
    });
    if (res.status !== 200) throw new Error(`POST /api/v1/statuses answered ${res.status}: ${await res.text()}`);
    ctx.readerPosts.push((await res.json()).uri);
  }
  const remote = await remoteReady;
  ctx.origin = remote.origin;
  ctx.keysMs = remote.keysMs;
  return { ctx, relay, instance };
}

/** Starts the relay on the rig's port with data in `dir`. */
export function startRelay(ctx, { dir, cpus, phase, nodeArgs = [], bin }) {
  return startHearthProc({
    bin,
    cpus,
    args: ['relay', 'serve', '--data', dir, '--port', String(ctx.relayPort), '--bind', '0.0.0.0', '--domain', `127.0.0.1:${ctx.relayPort}`, '--allow-loopback'],
    nodeArgs: [...nodeArgs, ...profileArgs(phase, 'relay')],
    ready: /is listening on/,
  });
}

/** Starts the instance on the rig's port with data in `dir`, federating through the relay (enrolling with `code` when given). */
export function startInstance(ctx, { dir, cpus, phase, code = null, bin }) {
  const args = ['serve', '--data', dir, '--port', String(ctx.instancePort), '--bind', '127.0.0.1', '--relay', ctx.relayUrl, '--federation-allow-loopback'];
  if (code) args.push('--relay-code', code);
  return startHearthProc({ bin, cpus, args, nodeArgs: profileArgs(phase, 'instance'), ready: /Hearth is listening on/ });
}

/** The connector's last report, from the instance's database (null before the first). */
export function relayReport(db) {
  const row = db.prepare('SELECT status FROM relay_status WHERE id = 1').get();
  return row ? JSON.parse(row.status) : null;
}

/** Waits until the instance's connector reports its tunnel connected; resolves to the report. */
export async function waitConnected(instanceDir, timeoutMs = 30_000) {
  const db = new Database(join(instanceDir, 'hearth.sqlite3'), { readonly: true });
  try {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const report = relayReport(db);
      if (report?.connected) return report;
      if (Date.now() > until) throw new Error(`the instance's tunnel did not connect in ${timeoutMs} ms (${JSON.stringify(report)})`);
      await sleep(50);
    }
  } finally {
    db.close();
  }
}

/**
 * The reader follows the senders [0, known) (rows as a follow writes them, with the counters), so
 * that their public notes land in its home feed. Straight into SQLite, the instance stopped.
 */
export function seedFollows(instanceDir, { origin, known, readerUri }) {
  const db = new Database(join(instanceDir, 'hearth.sqlite3'));
  db.defaultSafeIntegers(true);
  try {
    const reader = db.prepare('SELECT id FROM accounts WHERE username = ? AND domain IS NULL').get(READER).id;
    const find = db.prepare('SELECT id FROM accounts WHERE uri = ?');
    const at = Date.now();
    const insert = db.prepare('INSERT OR IGNORE INTO follows (id, account_id, target_account_id, uri, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
    let added = 0;
    db.transaction(() => {
      for (let k = 0; k < known; k++) {
        const target = find.get(`${origin}/users/u${k}`);
        if (!target) throw new Error(`sender u${k} is not known to the instance`);
        const id = (BigInt(at) << 16n) | BigInt(1000 + k);
        if (insert.run(id, reader, target.id, `${readerUri}#follows/bench-${k}`, at, at).changes === 1) {
          db.prepare('UPDATE accounts SET followers_count = followers_count + 1 WHERE id = ?').run(target.id);
          added++;
        }
      }
      db.prepare('UPDATE accounts SET following_count = following_count + ? WHERE id = ?').run(added, reader);
    })();
    return added;
  } finally {
    db.close();
  }
}

/** Stops whatever of the rig's processes still runs. */
export async function stopAll(...procs) {
  for (const p of procs) if (p) await stopProc(p.child);
}
