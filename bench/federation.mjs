// Issue 7 benchmark: federation throughput, against the real `hearth serve` from dist.
// 1. Inbound: a fake remote server on loopback (127.0.3.1) serves BENCH_FED_ACTORS actor documents
//    with RSA keys; a load generator POSTs BENCH_FED_INBOUND pre-signed (draft-cavage + Digest)
//    Create(Note) activities, each unique, to the instance's shared inbox over keep-alive
//    connections. Measured: activities accepted (202) per second, and processed end to end per
//    second (until every note is a stored status, read from the SQLite file), and the server's CPU
//    time per activity (all its threads, from /proc). The first BENCH_FED_ACTORS activities, one
//    from each actor (first contact: keys and actors fetched, accounts stored), are timed apart
//    from the rest (known senders); the rate reported is that of all of them.
// 2. Outbound: one public post to 5,000 remote followers on 500 instances (10 each, each with a
//    shared inbox), seeded straight into SQLite. The 500 instances are 500 loopback addresses
//    (127.0.1.1–127.0.2.250) all reaching one sink server bound to 0.0.0.0, which records when each
//    shared inbox is first reached and checks every POST for a signature, a Digest and a
//    Content-Length. Measured: from POST /api/v1/statuses returning to the last inbox reached;
//    each inbox must be reached exactly once.
//    Then a steady BENCH_FED_PACED_RATE activities/s (default 100) for BENCH_FED_PACED_SECONDS (5),
//    to see the REST API beside a busy but not saturated inbox. BENCH_FED_SKIP_INBOUND=1 skips
//    phase 1; BENCH_FED_OUTBOUND_POSTS=N (default 3) sends N posts in a row (more timeline samples, the
//    slowest post reported).
// 3. During both: the home timeline (10,000 statuses) from a few paced clients, p50/p99.
// The server runs on core 0 (taskset) and everything else on the other cores, when taskset exists:
// the server's threads (the main JavaScript thread, the delivery thread, SQLite and libuv's pool)
// share "one core". BENCH_FED_SERVER_CPUS=0-1 gives it more (taskset's list syntax).
import { createServer } from 'node:net';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { fmt, freshDataDir, hearth, loadAverage, root, stop } from './lib/procs.mjs';
import { nextMessage, spawnPinned, startPacedLoad, tasksetAvailable } from './lib/paced-load.mjs';
import { seedHomeTimeline } from './lib/seed-timeline.mjs';
import { seedRemoteFollowers } from './lib/seed-followers.mjs';
import { availableParallelism } from 'node:os';

const INBOUND = Number(process.env.BENCH_FED_INBOUND ?? 10_000);
const ACTORS = Number(process.env.BENCH_FED_ACTORS ?? 100);
const CONNECTIONS = Number(process.env.BENCH_FED_CONNECTIONS ?? 16);
/** The steady inbound phase: activities per second and its length. */
const PACED_RATE = Number(process.env.BENCH_FED_PACED_RATE ?? 100);
const PACED_SECONDS = Number(process.env.BENCH_FED_PACED_SECONDS ?? 5);
/** Outbound posts in a row (each to the 5,000 followers); more give the timeline more samples. */
// Three by default: one post lasts about two seconds, a hundred timeline samples, whose p99 would be
// its slowest request; the delivery time reported is the slowest post's.
const OUTBOUND_POSTS = Math.max(1, Number(process.env.BENCH_FED_OUTBOUND_POSTS ?? 3));
/** BENCH_FED_SKIP_INBOUND=1 measures the outbound phase alone. */
const SKIP_INBOUND = process.env.BENCH_FED_SKIP_INBOUND === '1';
const INSTANCES = 500;
const PER_INSTANCE = 10;
const TIMELINE_CLIENTS = 4;
const TIMELINE_INTERVAL_MS = 100;
const cli = process.env.BENCH_CLI ?? join(root, 'bin', 'hearth.js');

/** Server on core 0 (or BENCH_FED_SERVER_CPUS); peers and clients on the rest (when there are other cores). */
const SERVER_CPUS = process.env.BENCH_FED_SERVER_CPUS ?? '0';
const OTHER_CPUS = availableParallelism() > 1 ? `1-${availableParallelism() - 1}` : '0';

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const elapsedS = (from, to) => Number(BigInt(to) - BigInt(from)) / 1e9;

function freePort(host) {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Starts `hearth serve` pinned to the server core with a loopback origin; resolves to its URL and process. */
async function startServer(dataDir, port) {
  const origin = `http://127.0.0.1:${port}`;
  // BENCH_FED_PROFILE=DIR writes a CPU profile of the server there (node --cpu-prof), keeping any
  // NODE_OPTIONS given (a preload measuring the event loop, say).
  const env = process.env.BENCH_FED_PROFILE ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --cpu-prof --cpu-prof-dir=${process.env.BENCH_FED_PROFILE}`.trim() } : {};
  const child = spawnPinned(SERVER_CPUS, cli, ['serve', '--data', dataDir, '--bind', '127.0.0.1', '--port', String(port), '--origin', origin, '--federation-allow-loopback'], env);
  await new Promise((resolve, reject) => {
    const started = Date.now();
    const probe = async () => {
      if (child.exitCode !== null) return reject(new Error(`server exited (${child.exitCode})`));
      try {
        const res = await fetch(`${origin}/api/v1/instance`);
        if (res.status === 200) return resolve();
      } catch {
        // not listening yet
      }
      if (Date.now() - started > 20_000) return reject(new Error('server did not start'));
      setTimeout(probe, 100);
    };
    probe();
  });
  return { child, url: origin };
}

/** Polls `fn` every `everyMs` until it returns true or nothing changed for `idleMs`; returns the hrtime it became true, or null. */
async function pollUntil(fn, progress, { everyMs = 25, idleMs = 30_000 } = {}) {
  let last = progress();
  let lastChange = Date.now();
  for (;;) {
    if (fn()) return process.hrtime.bigint().toString();
    const p = progress();
    if (p !== last) {
      last = p;
      lastChange = Date.now();
    } else if (Date.now() - lastChange > idleMs) return null;
    await sleep(everyMs);
  }
}

/** CPU seconds of each thread of a process, by thread name (main thread, libuv pool, V8 workers…). */
function threadCpu(pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = /\((.*)\)/.exec(stat)?.[1] ?? tid;
      const fields = stat.replace(/^.*\) /, '').split(' ');
      out[name] = (out[name] ?? 0) + (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** CPU seconds (user + system, all threads) a process has used, from /proc. */
function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function queueState(db) {
  return db.prepare('SELECT queue, count(*) AS n, max(attempts) AS attempts, max(last_error) AS error FROM federation_queue GROUP BY queue').all();
}

/** Runs one inbound phase: requests [from, to) POSTed (at `rate`/s, or flat out), timeline measured meanwhile. */
async function inboundPhase({ server, peers, timelineUrl, headers, stored, inbox }, { from, to, rate = 0, concurrency }) {
  const total = to - from;
  const before = stored();
  const clients = await startPacedLoad(OTHER_CPUS, { url: timelineUrl, headers, clients: TIMELINE_CLIENTS, intervalMs: TIMELINE_INTERVAL_MS });
  const cpuBefore = cpuSeconds(server.child.pid);
  const threadsBefore = threadCpu(server.child.pid);
  const posted = nextMessage(peers, 'posted');
  peers.send({ type: 'post', inbox, concurrency, from, to, rate });
  let result = null;
  posted.then((r) => (result = r));
  const done = await pollUntil(() => result !== null && stored() - before >= total, stored);
  const cpu = cpuSeconds(server.child.pid) - cpuBefore;
  const threads = Object.entries(threadCpu(server.child.pid)).map(([name, s]) => [name, s - (threadsBefore[name] ?? 0)]).filter(([, s]) => s >= 0.01);
  const timeline = await clients.stop();
  if (result === null) result = await posted;
  const accepted = result.statuses['202'] ?? 0;
  const processed = stored() - before;
  return {
    accepted,
    statuses: result.statuses,
    acceptedPerS: accepted / elapsedS(result.first, result.last),
    processed,
    processedPerS: done ? processed / elapsedS(result.first, done) : NaN,
    totalS: done ? elapsedS(result.first, done) : NaN,
    actorFetches: result.actorFetches,
    cpu,
    threads,
    timeline,
  };
}

/**
 * Inbound flat out (throughput), then at a steady PACED_RATE (the REST API beside a busy inbox).
 * The flat-out run is measured in two parts: its first ACTORS activities, one from each actor (the
 * instance meets each for the first time: key and actor fetched, account stored), and the rest
 * (known senders). The throughput reported is that of both together.
 */
async function inbound(server, peers, db, timelineUrl, headers) {
  const remote = await (async () => {
    const m = nextMessage(peers, 'remote');
    peers.send({ type: 'remote', host: '127.0.3.1', actors: ACTORS });
    return m;
  })();
  const inbox = `${server.url}/inbox`;
  const paced = Math.round(PACED_RATE * PACED_SECONDS);
  const signed = nextMessage(peers, 'presigned');
  peers.send({ type: 'presign', inbox, count: INBOUND + paced });
  console.log(`inbound: ${ACTORS} actors at ${remote.origin}; ${(INBOUND + paced).toLocaleString('en')} activities signed in ${fmt((await signed).ms / 1000, 1)} s`);
  const count = db.prepare('SELECT count(*) AS n FROM statuses WHERE uri > ? AND uri < ?').pluck();
  const stored = () => count.get(`${remote.origin}/`, `${remote.origin}0`);
  const env = { server, peers, timelineUrl, headers, stored, inbox };
  const contact = await inboundPhase(env, { from: 0, to: Math.min(ACTORS, INBOUND), concurrency: CONNECTIONS });
  const known = await inboundPhase(env, { from: Math.min(ACTORS, INBOUND), to: INBOUND, concurrency: CONNECTIONS });
  const sumOf = (k) => contact[k] + known[k];
  const statuses = { ...contact.statuses };
  for (const [code, n] of Object.entries(known.statuses)) statuses[code] = (statuses[code] ?? 0) + n;
  const totalS = contact.totalS + known.totalS;
  const threads = new Map(contact.threads);
  for (const [name, sec] of known.threads) threads.set(name, (threads.get(name) ?? 0) + sec);
  const flat = {
    accepted: sumOf('accepted'),
    statuses,
    acceptedPerS: known.acceptedPerS,
    processed: sumOf('processed'),
    processedPerS: sumOf('processed') / totalS,
    knownPerS: known.processedPerS,
    totalS,
    actorFetches: known.actorFetches,
    cpu: sumOf('cpu'),
    threads: [...threads],
    timeline: known.timeline,
    contact,
  };
  const steady = paced > 0 ? await inboundPhase(env, { from: INBOUND, to: INBOUND + paced, rate: PACED_RATE, concurrency: CONNECTIONS }) : null;
  return { ...flat, steady };
}

/**
 * One outbound post (or BENCH_FED_OUTBOUND_POSTS of them, a few seconds apart, for more timeline
 * samples): each must reach every shared inbox exactly once. The slowest post is reported.
 */
async function outbound(server, peers, db, timelineUrl, headers, sinkPort) {
  const report = () => {
    const m = nextMessage(peers, 'sink-report');
    peers.send({ type: 'sink-report' });
    return m;
  };
  const expected = new Set(Array.from({ length: INSTANCES }, (_, i) => `${instanceHost(i)}:${sinkPort}/inbox`));
  const clients = await startPacedLoad(OTHER_CPUS, { url: timelineUrl, headers, clients: TIMELINE_CLIENTS, intervalMs: TIMELINE_INTERVAL_MS });
  await sleep(500);
  const startedAt = Date.now();
  const posts = [];
  let cpu = 0;
  let timeline = null;
  for (let n = 0; n < OUTBOUND_POSTS; n++) {
    const reset = nextMessage(peers, 'sink-reset');
    peers.send({ type: 'sink-reset' });
    await reset;
    const res = await fetch(`${server.url}/api/v1/statuses`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ status: `One public post for 5,000 followers on 500 instances #benchmark (${n + 1})`, visibility: 'public' }),
    });
    const returned = process.hrtime.bigint();
    const cpuBefore = cpuSeconds(server.child.pid);
    if (res.status !== 200) throw new Error(`POST /api/v1/statuses answered ${res.status}: ${await res.text()}`);
    await res.arrayBuffer();
    let latest = null;
    const started = Date.now();
    while (Date.now() - started < 120_000) {
      latest = await report();
      if (latest.inboxes.length >= INSTANCES) break;
      await sleep(100);
    }
    cpu += cpuSeconds(server.child.pid) - cpuBefore;
    // The timeline is measured until the last post reached every inbox (a quiet server after that
    // would only dilute the figures).
    if (n === OUTBOUND_POSTS - 1) timeline = await clients.stop();
    // Anything sent twice would arrive shortly after.
    await sleep(n === OUTBOUND_POSTS - 1 ? 3000 : 1500);
    latest = await report();
    const firsts = latest.inboxes.filter((x) => expected.has(x.inbox)).map((x) => BigInt(x.first));
    const lastFirst = firsts.reduce((a, b) => (b > a ? b : a), 0n);
    posts.push({
      reached: firsts.length,
      unexpected: latest.inboxes.filter((x) => !expected.has(x.inbox)).length,
      duplicates: latest.inboxes.filter((x) => x.hits > 1).length,
      posts: latest.posts,
      unsigned: latest.unsigned,
      noDigest: latest.noDigest,
      noLength: latest.noLength,
      chunked: latest.chunked,
      seconds: firsts.length === INSTANCES ? Number(lastFirst - returned) / 1e9 : NaN,
    });
  }
  const sum = (k) => posts.reduce((a, p) => a + p[k], 0);
  return {
    reached: Math.min(...posts.map((p) => p.reached)),
    unexpected: sum('unexpected'),
    duplicates: sum('duplicates'),
    posts: sum('posts'),
    unsigned: sum('unsigned'),
    noDigest: sum('noDigest'),
    noLength: sum('noLength'),
    chunked: sum('chunked'),
    seconds: posts.some((p) => Number.isNaN(p.seconds)) ? NaN : Math.max(...posts.map((p) => p.seconds)),
    all: posts.map((p) => p.seconds),
    queue: queueState(db),
    cpu,
    startedAt,
    endedAt: Date.now(),
    timeline,
  };
}

/** The loopback address standing in for instance `i` (127.0.1.1–127.0.1.250, 127.0.2.1–…). */
export function instanceHost(i) {
  return `127.0.${1 + Math.floor(i / 250)}.${1 + (i % 250)}`;
}

async function idleTimeline(timelineUrl, headers) {
  const clients = await startPacedLoad(OTHER_CPUS, { url: timelineUrl, headers, clients: TIMELINE_CLIENTS, intervalMs: TIMELINE_INTERVAL_MS });
  await sleep(3000);
  return clients.stop();
}

export async function run() {
  const dataDir = freshDataDir('federation');
  hearth(['account', 'create', '--data', dataDir, '--username', 'reader', '--password', 'reader-password-1', '--role', 'owner']);
  const token = hearth(['token', '--data', dataDir, '--username', 'reader', '--scopes', 'read write']);
  const headers = { authorization: `Bearer ${token}` };
  const dbFile = join(dataDir, 'hearth.sqlite3');
  seedHomeTimeline(dbFile, { readerUsername: 'reader', total: 10_000 });

  const peers = spawnPinned(OTHER_CPUS, fileURLToPath(new URL('./lib/fed-peers.mjs', import.meta.url)), [], { HEARTH_FED_PEERS: '1' });
  let server = null;
  let db = null;
  try {
    await nextMessage(peers, 'ready');
    const sinkReady = nextMessage(peers, 'sink');
    peers.send({ type: 'sink' });
    const sinkPort = (await sinkReady).port;
    seedRemoteFollowers(dbFile, { username: 'reader', instances: INSTANCES, perInstance: PER_INSTANCE, host: instanceHost, port: sinkPort });

    const port = await freePort('127.0.0.1');
    server = await startServer(dataDir, port);
    db = new Database(dbFile, { readonly: true });
    const timelineUrl = `${server.url}/api/v1/timelines/home`;
    console.log(`server pinned to CPU ${tasksetAvailable() ? SERVER_CPUS : '(taskset unavailable: not pinned)'}; peers and clients on ${tasksetAvailable() ? OTHER_CPUS : '(not pinned)'}; load average ${loadAverage()}`);

    const idle = await idleTimeline(timelineUrl, headers);
    const inb = SKIP_INBOUND ? null : await inbound(server, peers, db, timelineUrl, headers);
    const out = await outbound(server, peers, db, timelineUrl, headers, sinkPort);

    const tl = (what, t) => ({ during: what, requests: t.requests, errors: t.errors, p50_ms: fmt(t.p50, 2), p99_ms: fmt(t.p99, 2), max_ms: fmt(t.max, 2) });
    if (inb) {
      console.log(`\ninbound: ${inb.accepted} of ${INBOUND} accepted (${JSON.stringify(inb.statuses)}), ${inb.processed} stored; ${inb.actorFetches} actor documents fetched`);
      console.log(`  accepted:  ${fmt(inb.acceptedPerS, 0)} activities/s (202 answers, ${CONNECTIONS} keep-alive connections)`);
      console.log(`  processed: ${fmt(inb.processedPerS, 0)} activities/s end to end (${fmt(inb.totalS, 2)} s from the first POST to the last status stored) — target ≥ 1,000/s: ${inb.processedPerS >= 1000 ? 'met' : 'NOT met'}`);
      console.log(`    first contact, one activity from each of ${inb.contact.processed} new actors: ${fmt(inb.contact.processedPerS, 0)}/s (${fmt((inb.contact.cpu * 1000) / inb.contact.processed, 2)} ms of CPU each); from known actors: ${fmt(inb.knownPerS, 0)}/s`);
      console.log(`  server CPU: ${fmt(inb.cpu, 2)} s over ${fmt(inb.totalS, 2)} s (${fmt((inb.cpu / inb.totalS) * 100, 0)}% of a core), ${fmt((inb.cpu * 1000) / inb.processed, 2)} ms per activity`);
      console.log(`  server CPU by thread: ${inb.threads.map(([name, s]) => `${name} ${fmt(s, 2)} s`).join(', ')}`);
      if (inb.steady) {
        const st = inb.steady;
        console.log(`  steady ${PACED_RATE}/s for ${PACED_SECONDS} s: ${st.processed} of ${st.accepted} accepted stored, ${fmt(st.cpu / st.totalS * 100, 0)}% of a core`);
      }
    }
    console.log(`\noutbound: ${out.reached} of ${INSTANCES} shared inboxes reached, ${out.duplicates} more than once, ${out.unexpected} unexpected inboxes; ${out.posts} POSTs`);
    console.log(`  server CPU until the last inbox was reached: ${fmt(out.cpu, 2)} s${OUTBOUND_POSTS > 1 ? ` (${OUTBOUND_POSTS} posts)` : ''}`);
    if (OUTBOUND_POSTS > 1) console.log(`  each post: ${out.all.map((x) => `${fmt(x, 2)} s`).join(', ')} (phase from ${new Date(out.startedAt).toISOString()} to ${new Date(out.endedAt).toISOString()})`);
    console.log(`  unsigned ${out.unsigned}, without Digest ${out.noDigest}, without Content-Length ${out.noLength}, chunked ${out.chunked}`);
    console.log(`  all ${INSTANCES} inboxes reached ${fmt(out.seconds, 2)} s after POST /api/v1/statuses returned — target ≤ 10 s, each exactly once: ${out.seconds <= 10 && out.duplicates === 0 ? 'met' : 'NOT met'}`);
    if (out.queue.length) console.log(`  left in the queue: ${JSON.stringify(out.queue)}`);
    console.log(`\nhome timeline, ${TIMELINE_CLIENTS} clients each polling every ${TIMELINE_INTERVAL_MS} ms:`);
    const rows = [tl('idle', idle)];
    if (inb) rows.push(tl(`inbound, first contact (${ACTORS} new actors)`, inb.contact.timeline));
    if (inb) rows.push(tl('inbound flat out (known actors)', inb.timeline));
    if (inb?.steady) rows.push(tl(`inbound at ${PACED_RATE}/s`, inb.steady.timeline));
    rows.push(tl(OUTBOUND_POSTS > 1 ? `outbound (${OUTBOUND_POSTS} posts)` : 'outbound', out.timeline));
    console.table(rows);
    const worst = Math.max(inb?.contact.timeline.p99 ?? 0, inb?.timeline.p99 ?? 0, inb?.steady?.timeline.p99 ?? 0, out.timeline.p99);
    console.log(`home timeline p99 during federation: ${fmt(worst, 2)} ms — target ≤ 10 ms: ${worst <= 10 ? 'met' : 'NOT met'}`);
    console.log(`load average: ${loadAverage()}`);
  } finally {
    db?.close();
    if (server) await stop(server.child);
    peers.kill('SIGTERM');
    if (!process.env.BENCH_KEEP) rmSync(dataDir, { recursive: true, force: true });
    else console.log(`data kept in ${dataDir}`);
  }
}
