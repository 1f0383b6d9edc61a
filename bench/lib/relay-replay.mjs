// Phase 1 of the relay benchmark (bench/relay.mjs): a backlog replayed to an instance that was
// offline. Set up once: the known senders each send one public note while the instance is online
// (so that their keys and accounts are stored there), the reader follows them, the instance
// stops, and all senders POST the backlog to its public host at the relay. The relay's and the
// instance's data directories are then kept as they are, and each run starts from a copy of
// them: relay first, then the instance, timed until every activity has taken effect.
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { freshDataDir } from './procs.mjs';
import { nextMessage, spawnPinned, startPacedLoad } from './paced-load.mjs';
import { warmNoteOf } from './relay-plan.mjs';
import { cpuSeconds, secondsBetween, sleep, startHearthProc, stopProc, threadCpu, threadDelta } from './relay-procs.mjs';
import { OTHER_CPUS, profileArgs, relayReport, seedFollows, SERVER_CPUS, startInstance, startRelay } from './relay-setup.mjs';

const TIMELINE_CLIENTS = 4;
const TIMELINE_INTERVAL_MS = 100;
const POLL_MS = 50;
/** A run fails when nothing took effect for this long. */
const STALL_MS = 90_000;

const ask = (peers, message, answer) => {
  const reply = nextMessage(peers, answer);
  peers.send(message);
  return reply;
};

/** Counts of what the senders' activities did in the instance's database. */
function counters(db, origin) {
  const statuses = db.prepare('SELECT count(*) AS n FROM statuses WHERE uri > ? AND uri < ?').pluck();
  const favourites = db.prepare("SELECT count(*) AS n FROM favourites WHERE account_id IN (SELECT id FROM accounts WHERE domain = ?)").pluck();
  const applied = db.prepare('SELECT count(*) AS n FROM relay_applied').pluck();
  const domain = new URL(origin).host;
  return {
    effects: () => statuses.get(`${origin}/`, `${origin}0`) + favourites.get(domain),
    applied: () => applied.get(),
    inQuery: (uris) => {
      const q = db.prepare(`SELECT count(*) AS n FROM statuses WHERE uri IN (${uris.map(() => '?').join(',')})`).pluck();
      return () => q.get(...uris);
    },
  };
}

/** Waits until `check()` is true (polling); throws after `timeoutMs`. */
async function until(check, timeoutMs, what) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/**
 * Sets the backlog up (see the file's comment). `rig` is the running relay and instance from
 * makeRig; both are stopped at the end. Resolves to what the runs need.
 */
export async function prepareBacklog(ctx, rig, { senders, known, perSender }) {
  const { peers } = ctx;
  // 1. The known senders meet the instance: one public note each, while it is online.
  const warm = await ask(peers, { type: 'sign', name: 'warm', kind: 'warm', inbox: ctx.inbox, from: 0, to: known, tag: 'w' }, 'signed');
  await ask(peers, { type: 'post', name: 'warm', inbox: ctx.inbox, concurrency: 8 }, 'posted');
  const db = new Database(join(ctx.instanceDir, 'hearth.sqlite3'), { readonly: true });
  const warmNotes = Array.from({ length: known }, (_, k) => warmNoteOf(ctx.origin, k));
  try {
    const arrived = counters(db, ctx.origin).inQuery(warmNotes);
    await until(() => arrived() === known, 120_000, `the ${known} warm-up notes`);
    await until(() => db.prepare("SELECT count(*) AS n FROM federation_queue WHERE queue = 'inbox'").pluck().get() === 0, 60_000, 'the inbox queue to empty');
  } finally {
    db.close();
  }
  // 2. The instance goes offline; its reader follows the known senders.
  await stopProc(rig.instance.child);
  seedFollows(ctx.instanceDir, { origin: ctx.origin, known, readerUri: ctx.reader.uri });
  // 3. The backlog, POSTed to the relay while the instance is away.
  const targets = [...ctx.readerPosts, ...warmNotes];
  const signed = await ask(peers, { type: 'sign', name: 'backlog', kind: 'backlog', inbox: ctx.inbox, senders, known, perSender, targets, reader: ctx.reader }, 'signed');
  const posted = await ask(peers, { type: 'post', name: 'backlog', inbox: ctx.inbox, concurrency: 16 }, 'posted');
  const relayDb = new Database(join(ctx.relayDir, 'relay.sqlite3'), { readonly: true });
  let stored;
  try {
    stored = relayDb.prepare('SELECT count(*) AS n FROM inbound').pluck().get();
  } finally {
    relayDb.close();
  }
  if (stored !== signed.count) throw new Error(`the relay holds ${stored} messages, ${signed.count} were sent`);
  await stopProc(rig.relay.child);
  // What the instance's database holds before any run: the runs count from there.
  const before = new Database(join(ctx.instanceDir, 'hearth.sqlite3'), { readonly: true });
  let baseline;
  try {
    const c = counters(before, ctx.origin);
    baseline = { effects: c.effects(), applied: c.applied() };
  } finally {
    before.close();
  }
  return {
    total: signed.count,
    firstContact: signed.firstContact,
    expected: signed.expected,
    baseline,
    signMs: warm.ms + signed.ms,
    post: { seconds: secondsBetween(posted.first, posted.last), statuses: posted.statuses },
  };
}

/**
 * One run: copies of the relay's and the instance's data, the relay started, then the instance,
 * timed until every activity of the backlog has taken effect in its database, with paced clients
 * reading the home timeline meanwhile (apart while first contact lasts). The copies are removed
 * unless `keep`, which resolves them with the result (the outbound phase goes on from there).
 */
export async function replayRun(ctx, backlog, { keep = false, bin } = {}) {
  const relayDir = freshDataDir('relay-run-relay');
  const instanceDir = freshDataDir('relay-run-instance');
  cpSync(ctx.relayDir, relayDir, { recursive: true });
  cpSync(ctx.instanceDir, instanceDir, { recursive: true });
  let relay = null;
  let instance = null;
  let db = null;
  let kept = false;
  const clients = [];
  try {
    relay = await startRelay(ctx, { dir: relayDir, cpus: OTHER_CPUS, phase: bin ? 'replay-compare' : 'replay', bin });
    const relayCpu0 = cpuSeconds(relay.child.pid);
    const wallAtStart = Date.now();
    instance = await startInstance(ctx, { dir: instanceDir, cpus: SERVER_CPUS, phase: bin ? 'replay-compare' : 'replay', bin });
    const pid = instance.child.pid;
    const cpuAtReady = cpuSeconds(pid);
    const threadsAtReady = threadCpu(pid);
    db = new Database(join(instanceDir, 'hearth.sqlite3'), { readonly: true });
    const c = counters(db, ctx.origin);
    const firstContact = c.inQuery(backlog.firstContact);
    const timeline = `${ctx.instanceUrl}/api/v1/timelines/home`;
    clients.push(await startPacedLoad(OTHER_CPUS, { url: timeline, headers: ctx.headers, clients: TIMELINE_CLIENTS, intervalMs: TIMELINE_INTERVAL_MS }));
    const tl = {};
    let fcAt = null;
    let doneAt = null;
    let last = -1;
    let lastChange = Date.now();
    for (;;) {
      const effects = c.effects() - backlog.baseline.effects;
      const applied = c.applied() - backlog.baseline.applied;
      const now = process.hrtime.bigint();
      if (fcAt === null && firstContact() === backlog.firstContact.length) {
        fcAt = now;
        // The clients measuring first contact stop; others take over for the rest.
        tl.firstContact = await clients[0].stop();
        clients.push(await startPacedLoad(OTHER_CPUS, { url: timeline, headers: ctx.headers, clients: TIMELINE_CLIENTS, intervalMs: TIMELINE_INTERVAL_MS }));
      }
      if (effects >= backlog.total && fcAt !== null) {
        doneAt = now;
        break;
      }
      if (effects !== last) {
        last = effects;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > STALL_MS) {
        throw new Error(`replay stalled at ${effects} of ${backlog.total} effects (${applied} acknowledged)\n--- instance ---\n${instance.output().slice(-3000)}\n--- relay ---\n${relay.output().slice(-3000)}`);
      }
      await sleep(POLL_MS);
    }
    const cpu = cpuSeconds(pid) - cpuAtReady;
    const threads = threadDelta(threadsAtReady, threadCpu(pid));
    const relayCpu = cpuSeconds(relay.child.pid) - relayCpu0;
    tl.rest = await clients[1].stop();
    clients.length = 0;
    const report = relayReport(db);
    // Wall-clock times of the instance (ms) placed on the monotonic clock through its start.
    const onClock = (wallMs) => instance.startedAt + BigInt(Math.round((wallMs - wallAtStart) * 1e6));
    const connectedAt = onClock(report.connectedSince);
    // An acknowledgement's record is committed without waiting and may come a little after the
    // activity took effect: the last one's time is read once all are there.
    await until(() => c.applied() - backlog.baseline.applied >= backlog.total, 10_000, 'every message to be marked applied').catch(() => {});
    const lastApplied = db.prepare('SELECT max(applied_at) AS t FROM relay_applied').pluck().get();
    const ackedAt = c.applied() - backlog.baseline.applied >= backlog.total ? onClock(lastApplied) : null;
    const exact = {
      effects: c.effects() - backlog.baseline.effects,
      favourites: db.prepare("SELECT count(*) AS n FROM favourites WHERE account_id IN (SELECT id FROM accounts WHERE domain = ?)").pluck().get(new URL(ctx.origin).host),
      homeFeed: db.prepare('SELECT count(*) AS n FROM home_feed h JOIN statuses s ON s.id = h.status_id WHERE s.uri > ? AND s.uri < ?').pluck().get(`${ctx.origin}/`, `${ctx.origin}0`),
    };
    const fromStart = secondsBetween(instance.startedAt, doneAt);
    const fromConnect = secondsBetween(connectedAt, doneAt);
    const fc = secondsBetween(connectedAt, fcAt);
    const result = {
      startup: secondsBetween(instance.startedAt, instance.readyAt),
      connectAfter: secondsBetween(instance.startedAt, connectedAt),
      fromStart,
      fromConnect,
      perSFromStart: backlog.total / fromStart,
      perSFromConnect: backlog.total / fromConnect,
      firstContactS: fc,
      restPerS: (backlog.total - backlog.firstContact.length) / secondsBetween(fcAt, doneAt),
      ackedS: ackedAt ? secondsBetween(connectedAt, ackedAt) : NaN,
      cpuMsPer: (cpu * 1000) / backlog.total,
      cpuShare: cpu / secondsBetween(instance.readyAt, doneAt),
      threads,
      relayCpuMsPer: (relayCpu * 1000) / backlog.total,
      timeline: tl,
      exact,
    };
    kept = keep;
    return keep ? { result, relay, instance, relayDir, instanceDir } : { result };
  } finally {
    for (const cl of clients) await cl.stop().catch(() => {});
    db?.close();
    if (!kept) {
      if (instance) await stopProc(instance.child);
      if (relay) await stopProc(relay.child);
      rmSync(relayDir, { recursive: true, force: true });
      rmSync(instanceDir, { recursive: true, force: true });
    }
  }
}

/**
 * For comparison: the same instance data and the same signed activities, POSTed straight to the
 * instance's own port (16 keep-alive connections, flat out) with no relay at all: the instance
 * runs with its public origin (as a headless instance behind a TLS proxy would), so that its
 * inbox, verification and processing are the same and only the relay's part is missing. Timed
 * from the first POST until every activity has taken effect.
 */
export async function directRun(ctx, backlog) {
  const instanceDir = freshDataDir('relay-direct-instance');
  cpSync(ctx.instanceDir, instanceDir, { recursive: true });
  let instance = null;
  let db = null;
  let clients = null;
  try {
    instance = await startHearthProc({
      cpus: SERVER_CPUS,
      args: ['serve', '--data', instanceDir, '--port', String(ctx.instancePort), '--bind', '127.0.0.1', '--origin', `http://${ctx.tenantHost}`, '--federation-allow-loopback'],
      nodeArgs: profileArgs('direct', 'instance'),
      ready: /Hearth is listening on/,
    });
    const pid = instance.child.pid;
    db = new Database(join(instanceDir, 'hearth.sqlite3'), { readonly: true });
    const c = counters(db, ctx.origin);
    const timeline = `${ctx.instanceUrl}/api/v1/timelines/home`;
    clients = await startPacedLoad(OTHER_CPUS, { url: timeline, headers: ctx.headers, clients: TIMELINE_CLIENTS, intervalMs: TIMELINE_INTERVAL_MS });
    const cpu0 = cpuSeconds(pid);
    const threads0 = threadCpu(pid);
    const posted = ask(ctx.peers, { type: 'post', name: 'backlog', inbox: `${ctx.instanceUrl}/inbox`, concurrency: 16 }, 'posted');
    let post = null;
    posted.then((p) => (post = p));
    let last = -1;
    let lastChange = Date.now();
    let doneAt = null;
    for (;;) {
      const effects = c.effects() - backlog.baseline.effects;
      if (effects >= backlog.total && post !== null) {
        doneAt = process.hrtime.bigint();
        break;
      }
      if (effects !== last) {
        last = effects;
        lastChange = Date.now();
      } else if (Date.now() - lastChange > STALL_MS) {
        throw new Error(`direct inbox stalled at ${effects} of ${backlog.total}\n${instance.output().slice(-3000)}`);
      }
      await sleep(POLL_MS);
    }
    const cpu = cpuSeconds(pid) - cpu0;
    const threads = threadDelta(threads0, threadCpu(pid));
    const tl = await clients.stop();
    clients = null;
    const seconds = secondsBetween(post.first, doneAt);
    return { seconds, perS: backlog.total / seconds, cpuMsPer: (cpu * 1000) / backlog.total, cpuShare: cpu / seconds, threads, timeline: tl, statuses: post.statuses, effects: c.effects() - backlog.baseline.effects };
  } finally {
    await clients?.stop().catch(() => {});
    db?.close();
    if (instance) await stopProc(instance.child);
    rmSync(instanceDir, { recursive: true, force: true });
  }
}

/**
 * The relay's replay alone: a copy of the relay's data (the backlog waiting), the relay on the
 * measured core, and a client on the others that logs in with the instance's tunnel key and
 * acknowledges each message as it comes (or `rate` a second, an instance's pace, for the first
 * `count`), applying nothing. Measured: messages per second from the
 * login to the last message, and the relay's CPU per message (the replay's reads, the frames, the
 * acknowledgements' deletes).
 */
export async function relayDrainRun(ctx, backlog, { bin, rate = 0, count = backlog.total } = {}) {
  const relayDir = freshDataDir('relay-drain');
  cpSync(ctx.relayDir, relayDir, { recursive: true });
  const source = new Database(join(ctx.instanceDir, 'hearth.sqlite3'), { readonly: true });
  const enrolment = source.prepare('SELECT host, tunnel_private_key FROM relay_enrolment WHERE id = 1').get();
  source.close();
  let relay = null;
  let client = null;
  try {
    relay = await startRelay(ctx, { dir: relayDir, cpus: SERVER_CPUS, phase: bin ? 'drain-compare' : 'drain', bin });
    client = spawnPinned(OTHER_CPUS, fileURLToPath(new URL('./relay-tunnels.mjs', import.meta.url)), [], { HEARTH_RELAY_TUNNELS: '1' });
    await nextMessage(client, 'ready');
    const cpu0 = cpuSeconds(relay.child.pid);
    const drained = ask(client, { type: 'drain', relayUrl: ctx.relayUrl, host: enrolment.host, privateKeyPem: enrolment.tunnel_private_key, count, rate }, 'drained');
    const d = await drained;
    const cpu = cpuSeconds(relay.child.pid) - cpu0;
    const seconds = secondsBetween(d.loggedIn, d.last);
    return { seconds, count, perS: count / seconds, cpuMsPer: (cpu * 1000) / count, cpuShare: cpu / seconds };
  } finally {
    client?.kill('SIGTERM');
    if (relay) await stopProc(relay.child);
    rmSync(relayDir, { recursive: true, force: true });
  }
}
