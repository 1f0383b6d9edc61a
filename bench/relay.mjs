// Relay benchmark (`npm run bench -- relay`), against the real `hearth relay serve` and
// `hearth serve --relay` from dist (bin/hearth.js). Phases (BENCH_RELAY_PHASES picks some; all by
// default), each run BENCH_RELAY_RUNS times (default 3): every run is printed, then the median.
// 1. replay: an instance offline while 200 senders (150 it knows, whose public notes its reader
//    follows, and 50 new to it) POST a backlog of 20,000 activities to its public host at the relay
//    (80% public notes, 5% mentions of the reader, 10% Likes, 5% Announces); then the instance
//    starts, and the time until every activity has taken effect in its SQLite file (a status or a
//    favourite each) is measured from the process's start and from its tunnel connecting (the
//    connector's own record of that moment). The new senders' first activities come first in the
//    backlog and are timed apart (first contact: keys and actors fetched through the relay).
//    Meanwhile paced clients read the home timeline (10,000 statuses seeded). Each run starts from
//    copies of the same data. Runs after the first are made while they fit in
//    BENCH_RELAY_REPLAY_BUDGET_S (330). BENCH_RELAY_SENDERS, BENCH_RELAY_NEW and
//    BENCH_RELAY_PER_SENDER size the backlog.
// 2. drain: the relay's replay alone, to a client that acknowledges each message at once, then
//    at BENCH_RELAY_DRAIN_PACE (150) a second, for ten seconds (the relay's cost per message at an
//    instance's pace).
// 3. accept: the relay alone, the instance offline; after a warm-up (each sender posts once, the
//    relay keeps the keys), 50 POSTs/s (the latency without queueing), then
//    BENCH_RELAY_ACCEPT_RATE (500) inbox POSTs per second, open loop, for
//    BENCH_RELAY_ACCEPT_SECONDS (5) per run: time to the 202 as the client sees it, and the relay's
//    histogram hearth_relay_accept_seconds; the disk's fdatasync latency beside them.
// 4. memory: BENCH_RELAY_TENANTS (1,000) tenants and as many idle tunnels: the relay's resident
//    memory per tenant, after full garbage collections (asked through the inspector) and without.
// 5. outbound: one public post to 5,000 followers on 500 instances through the relay
//    (BENCH_RELAY_OUTBOUND_POSTS posts in a row, default 3), on the last replay run's data.
// The measured process (the instance in 1 and 5, the relay in 2, 3 and 4) runs on core 0,
// everything else on the other cores, when taskset exists (BENCH_RELAY_SERVER_CPUS,
// BENCH_RELAY_OTHER_CPUS).
// BENCH_RELAY_DIRECT=1 adds, after each replay run, the same activities POSTed straight to the
// instance without a relay (the relay's part apart); BENCH_RELAY_COMPARE_CLI=…/bin/hearth.js makes
// each replay and drain run with another build too, back to back (before/after figures).
// BENCH_RELAY_PROFILE=DIR writes CPU profiles of every relay and instance process (node
// --cpu-prof) to DIR/<phase>-<role>/. BENCH_KEEP=1 keeps the data directories.
import { rmSync } from 'node:fs';
import { fmt, loadAverage } from './lib/procs.mjs';
import { startPacedLoad, tasksetAvailable } from './lib/paced-load.mjs';
import { acceptRuns, prepareAccept } from './lib/relay-accept.mjs';
import { memoryRun, timeCliAdd } from './lib/relay-memory.mjs';
import { outboundRuns, startSink } from './lib/relay-outbound.mjs';
import { freePort, median, sleep, stopProc } from './lib/relay-procs.mjs';
import { directRun, prepareBacklog, relayDrainRun, replayRun } from './lib/relay-replay.mjs';
import { makeRig, OTHER_CPUS, SERVER_CPUS } from './lib/relay-setup.mjs';

const num = (name, fallback) => Number(process.env[name] ?? fallback);
const RUNS = Math.max(1, num('BENCH_RELAY_RUNS', 3));
const SENDERS = num('BENCH_RELAY_SENDERS', 200);
const NEW = num('BENCH_RELAY_NEW', 50);
const PER_SENDER = num('BENCH_RELAY_PER_SENDER', 100);
const ACCEPT_RATE = num('BENCH_RELAY_ACCEPT_RATE', 500);
const ACCEPT_SECONDS = num('BENCH_RELAY_ACCEPT_SECONDS', 5);
const TENANTS = num('BENCH_RELAY_TENANTS', 1000);
const OUTBOUND_POSTS = Math.max(1, num('BENCH_RELAY_OUTBOUND_POSTS', 3));
const PHASES = (process.env.BENCH_RELAY_PHASES ?? 'replay,drain,accept,memory,outbound').split(',').filter(Boolean);
/** BENCH_RELAY_DIRECT=1: after each replay run, the same activities POSTed straight to the instance (no relay), for comparison. */
const DIRECT = process.env.BENCH_RELAY_DIRECT === '1';
/**
 * BENCH_RELAY_COMPARE_CLI=/path/to/another/checkout/bin/hearth.js: each replay run is made with
 * that build too, back to back (the order alternating from run to run), for before/after figures.
 */
const COMPARE_CLI = process.env.BENCH_RELAY_COMPARE_CLI ?? null;
/**
 * Replay runs after the first are made only while they fit in this many seconds (a run lasts
 * 40 s at the target rate, minutes on a slow or busy machine): BENCH_RELAY_REPLAY_BUDGET_S.
 */
const REPLAY_BUDGET_S = num('BENCH_RELAY_REPLAY_BUDGET_S', 330);
/** The drain's second part: messages acknowledged per second, about what an instance here applies. */
const DRAIN_PACE = num('BENCH_RELAY_DRAIN_PACE', 150);

/** A figure against its target: the ratio and whether it is met. */
function verdict(value, target, atLeast) {
  const met = Number.isFinite(value) && (atLeast ? value >= target : value <= target);
  return `${atLeast ? '≥' : '≤'} ${target}: ×${fmt(value / target, 2)} of the target, ${met ? 'met' : 'NOT met'}`;
}

const summary = [];
function target(what, value, unit, goal, atLeast, digits = 1) {
  summary.push({ target: what, median: `${fmt(value, digits)} ${unit}`, goal: `${atLeast ? '≥' : '≤'} ${goal} ${unit}`, ratio: `×${fmt(value / goal, 2)}`, verdict: Number.isFinite(value) && (atLeast ? value >= goal : value <= goal) ? 'met' : 'NOT met' });
  return verdict(value, goal, atLeast);
}

async function idleTimeline(ctx) {
  const clients = await startPacedLoad(OTHER_CPUS, { url: `${ctx.instanceUrl}/api/v1/timelines/home`, headers: ctx.headers, clients: 4, intervalMs: 100 });
  await sleep(3000);
  return clients.stop();
}

function printReplay(backlog, runs) {
  const total = backlog.total;
  const e = backlog.expected;
  console.log(`\nreplay: ${total.toLocaleString('en')} activities (${e.notes} public notes, ${e.mentions} mentions, ${e.likes} Likes, ${e.announces} Announces) from ${SENDERS} senders, ${NEW} of them new to the instance`);
  console.log(`  method: the instance (core ${SERVER_CPUS}) starts on a copy of its data with the backlog waiting at the relay (core ${OTHER_CPUS}); applied = a status or a favourite in its SQLite file for each activity, polled every 50 ms`);
  console.table(
    runs.map((r, i) => ({
      run: i + 1,
      start_s: fmt(r.startup, 2),
      tunnel_s: fmt(r.connectAfter, 2),
      first_contact_s: fmt(r.firstContactS, 2),
      acked_s: fmt(r.ackedS, 1),
      applied_s: fmt(r.fromConnect, 1),
      per_s_from_tunnel: fmt(r.perSFromConnect, 0),
      per_s_from_start: fmt(r.perSFromStart, 0),
      rest_per_s: fmt(r.restPerS, 0),
      cpu_ms_each: fmt(r.cpuMsPer, 2),
      cpu_share: `${fmt(r.cpuShare * 100, 0)}%`,
      relay_cpu_ms_each: fmt(r.relayCpuMsPer, 2),
      tl_fc_p99: fmt(r.timeline.firstContact?.p99, 1),
      tl_p50: fmt(r.timeline.rest?.p50, 1),
      tl_p99: fmt(r.timeline.rest?.p99, 1),
      effects: r.exact.effects,
    })),
  );
  console.log('  (times in s from the instance process starting: start_s = listening, tunnel_s = tunnel connected; first_contact_s, acked_s (every message acknowledged to the relay) and applied_s from the tunnel connecting; timeline in ms, tl_fc during first contact)');
  for (const [i, r] of runs.entries()) {
    console.log(`  run ${i + 1}: instance CPU by thread ${r.threads.map(([n, s]) => `${n} ${fmt(s, 1)} s`).join(', ')}; home feed rows from the senders ${r.exact.homeFeed}; timeline requests ${r.timeline.firstContact?.requests ?? 0} + ${r.timeline.rest?.requests ?? 0}, max ${fmt(Math.max(r.timeline.firstContact?.max ?? 0, r.timeline.rest?.max ?? 0), 1)} ms`);
    if (r.exact.effects !== total) console.log(`  run ${i + 1}: ${r.exact.effects} effects for ${total} activities: NOT each applied once`);
  }
  const m = (f) => median(runs.map(f));
  console.log(`  first contact (${NEW} new senders' first activities, from the tunnel connecting): median ${fmt(m((r) => r.firstContactS), 2)} s (${fmt(NEW / m((r) => r.firstContactS), 0)}/s); the rest: ${fmt(m((r) => r.restPerS), 0)}/s`);
  console.log(`  applied, from the tunnel connecting: median ${fmt(m((r) => r.perSFromConnect), 0)} activities/s — ${target('replay rate (from tunnel)', m((r) => r.perSFromConnect), '/s', 500, true, 0)}`);
  console.log(`  applied, from the process starting: median ${fmt(m((r) => r.perSFromStart), 0)} activities/s — ${target('replay rate (from start)', m((r) => r.perSFromStart), '/s', 500, true, 0)}`);
  const p99 = m((r) => Math.max(r.timeline.firstContact?.p99 ?? 0, r.timeline.rest?.p99 ?? 0));
  console.log(`  home timeline p99 during the replay (worse of the two parts): median ${fmt(p99, 1)} ms (p50 ${fmt(m((r) => r.timeline.rest?.p50), 1)} ms) — ${target('home timeline p99 in replay', p99, 'ms', 20, false)}`);
  console.log(`  instance CPU: median ${fmt(m((r) => r.cpuMsPer), 2)} ms per activity; the relay's ${fmt(m((r) => r.relayCpuMsPer), 2)} ms`);
}

function printDirect(backlog, direct, runs) {
  console.log(`\nfor comparison, the same ${backlog.total.toLocaleString('en')} signed activities POSTed straight to the instance (same data, no relay, --origin instead of --relay; 16 connections flat out), each run right after the replay run of the same number:`);
  console.table(
    direct.map((d, i) => ({
      run: i + 1,
      seconds: fmt(d.seconds, 1),
      per_s: fmt(d.perS, 0),
      replay_per_s: fmt(runs[i]?.perSFromConnect, 0),
      cpu_ms_each: fmt(d.cpuMsPer, 2),
      replay_cpu_ms_each: fmt(runs[i]?.cpuMsPer, 2),
      cpu_share: `${fmt(d.cpuShare * 100, 0)}%`,
      tl_p50: fmt(d.timeline.p50, 1),
      tl_p99: fmt(d.timeline.p99, 1),
      answers: JSON.stringify(d.statuses),
      effects: d.effects,
    })),
  );
  for (const [i, d] of direct.entries()) console.log(`  direct run ${i + 1}: instance CPU by thread ${d.threads.map(([n, s]) => `${n} ${fmt(s, 1)} s`).join(', ')}`);
  console.log(`  median: direct ${fmt(median(direct.map((d) => d.perS)), 0)}/s at ${fmt(median(direct.map((d) => d.cpuMsPer)), 2)} ms of CPU each; through the relay ${fmt(median(runs.map((r) => r.perSFromConnect)), 0)}/s at ${fmt(median(runs.map((r) => r.cpuMsPer)), 2)} ms`);
}

function printDrains(drains, pace) {
  const how = pace ? `acknowledges ${pace} messages a second (an instance's pace), ${drains[0].own.count} of them` : 'acknowledges each message at once';
  console.log(`\nthe relay's replay alone (relay on core ${SERVER_CPUS}; a client logged in with the instance's tunnel key ${how}, applying nothing), from the login to the last message:`);
  const row = (build, d, i) => ({ build, run: i + 1, seconds: fmt(d.seconds, 2), per_s: fmt(d.perS, 0), relay_cpu_ms_each: fmt(d.cpuMsPer, 3), relay_cpu: `${fmt(d.cpuShare * 100, 0)}%` });
  console.table(drains.flatMap((d, i) => [row('this', d.own, i), ...(d.other ? [row('other', d.other, i)] : [])]));
  const m = (f) => median(drains.map(f));
  console.log(`  median: ${fmt(m((d) => d.own.perS), 0)} messages/s at ${fmt(m((d) => d.own.cpuMsPer), 3)} ms of relay CPU each${drains[0]?.other ? `; the other build ${fmt(m((d) => d.other.perS), 0)}/s at ${fmt(m((d) => d.other.cpuMsPer), 3)} ms` : ''}`);
}

function printCompared(runs, compared) {
  console.log(`\nthis build against ${COMPARE_CLI}, run by run (back to back, the other build first in odd runs):`);
  const row = (name, r, i) => ({
    build: name,
    run: i + 1,
    per_s_from_tunnel: fmt(r.perSFromConnect, 0),
    first_contact_s: fmt(r.firstContactS, 2),
    cpu_ms_each: fmt(r.cpuMsPer, 2),
    relay_cpu_ms_each: fmt(r.relayCpuMsPer, 3),
    tl_p99: fmt(Math.max(r.timeline.firstContact?.p99 ?? 0, r.timeline.rest?.p99 ?? 0), 1),
  });
  console.table(runs.flatMap((r, i) => [row('this', r, i), row('other', compared[i], i)]));
  const m = (list, f) => fmt(median(list.map(f)), 3);
  console.log(`  medians: this ${m(runs, (r) => r.perSFromConnect)}/s, ${m(runs, (r) => r.cpuMsPer)} ms instance CPU, ${m(runs, (r) => r.relayCpuMsPer)} ms relay CPU each; other ${m(compared, (r) => r.perSFromConnect)}/s, ${m(compared, (r) => r.cpuMsPer)} ms, ${m(compared, (r) => r.relayCpuMsPer)} ms`);
}

function printAccept({ runs, light, lightRate, disk }) {
  console.log(`\naccept: ${ACCEPT_RATE} inbox POSTs/s for ${ACCEPT_SECONDS} s per run, open loop over up to 64 keep-alive connections, public notes from ${SENDERS} senders whose keys the relay holds; relay on core ${SERVER_CPUS}, instance offline`);
  console.log(`  the disk under the relay's data: fdatasync p50 ${fmt(disk.p50, 2)} ms, p99 ${fmt(disk.p99, 2)} ms, max ${fmt(disk.max, 1)} ms (200 flushes of a 4 KiB write; every accept waits for one)`);
  console.table(
    [['light', light], ...runs.map((r, i) => [i + 1, r])].map(([run, r]) => ({
      run: run === 'light' ? `${lightRate}/s` : run,
      sent: r.client.sent,
      answers: JSON.stringify(r.client.statuses),
      achieved_per_s: fmt(r.achieved, 0),
      client_p50_ms: fmt(r.client.p50, 2),
      client_p99_ms: fmt(r.client.p99, 2),
      client_max_ms: fmt(r.client.max, 1),
      from_due_p99_ms: fmt(r.client.dueP99, 2),
      relay_p50_ms: fmt(r.relay.p50.value * 1000, 2),
      relay_p99_ms: `${fmt(r.relay.p99.value * 1000, 2)} (≤ ${fmt(r.relay.p99.le * 1000, 1)})`,
      relay_cpu: `${fmt(r.cpuShare * 100, 0)}%`,
      cpu_ms_each: fmt(r.cpuMsPer, 2),
    })),
  );
  console.log(`  (client: from sending to the 202; from_due: from when the request was due, the client's own lag included; relay: hearth_relay_accept_seconds, interpolated within its bucket, the bucket's bound after ≤; the first row: ${lightRate}/s for 2 s, the latency without queueing)`);
  for (const [i, r] of runs.entries()) console.log(`  run ${i + 1}: relay CPU by thread ${r.threads.map(([n, s]) => `${n} ${fmt(s, 2)} s`).join(', ')}`);
  const p99 = median(runs.map((r) => r.client.p99));
  console.log(`  accept p99 as the client sees it: median ${fmt(p99, 2)} ms — ${target('accept p99 at 500/s', p99, 'ms', 20, false, 2)}; the relay's own p99 median ${fmt(median(runs.map((r) => r.relay.p99.value * 1000)), 2)} ms`);
}

function printMemory(runs) {
  const r0 = runs[0];
  console.log(`\nmemory: ${TENANTS} tenants (added through the store's addTenant in one process, ${fmt(r0.addMs / 1000, 1)} s; one \`hearth relay tenant add\` takes ${fmt(r0.cliAddMs, 0)} ms, ${fmt((r0.cliAddMs * TENANTS) / 60000, 1)} min for ${TENANTS}), ${TENANTS} idle tunnels enrolled by a load process; relay on core ${SERVER_CPUS}`);
  console.table(
    runs.map((r, i) => ({
      run: i + 1,
      connected: `${r.connected} (open at the end ${r.open}, relay's gauge ${r.gauge}${r.failed ? `, ${r.failed} failed: ${r.lastError}` : ''})`,
      connect_s: fmt(r.connectS, 1),
      rss_before_MiB: fmt(r.before.rssGc / 1024, 1),
      rss_after_MiB: fmt(r.after.rssGc / 1024, 1),
      per_tenant_KiB: fmt(r.perTenantKiB, 1),
      per_tenant_no_gc_KiB: fmt(r.perTenantNoGcKiB, 1),
      heap_per_tenant_KiB: fmt(r.heapPerTenantKiB, 1),
      login_cpu_ms: fmt(r.connectCpuMsPer, 2),
      idle_cpu: `${fmt(r.idleCpuShare * 100, 1)}%`,
    })),
  );
  console.log('  (RSS after two full collections through the inspector, before the tunnels and after them; no_gc: the same without collecting; heap: V8 heap used; idle_cpu: the relay\'s CPU over 5 s with every tunnel idle)');
  const per = median(runs.map((r) => (r.gauge === TENANTS ? r.perTenantKiB : NaN)));
  if (runs.some((r) => r.gauge !== TENANTS)) console.log(`  runs whose relay did not hold all ${TENANTS} tunnels at the end are left out of the median`);
  console.log(`  relay memory per idle connected tenant: median ${fmt(per, 1)} KiB (${fmt(median(runs.map((r) => r.perTenantNoGcKiB)), 1)} KiB without collecting) — ${target('relay memory per idle tenant', per, 'KiB', 100, false)}`);
}

function printOutbound(out) {
  const posts = out.posts;
  console.log(`\noutbound: one public post to 5,000 followers on 500 instances (shared inboxes), through the relay; instance on core ${SERVER_CPUS}, relay and sink on ${OTHER_CPUS}`);
  console.table(
    posts.map((p, i) => ({
      post: i + 1,
      reached: p.reached,
      twice: p.duplicates,
      unexpected: p.unexpected,
      POSTs: p.posts,
      unsigned: p.unsigned,
      no_digest: p.noDigest,
      no_length: p.noLength,
      seconds: fmt(p.seconds, 2),
      instance_cpu_s: fmt(p.cpu, 2),
      relay_cpu_s: fmt(p.relayCpu, 2),
    })),
  );
  const s = median(posts.map((p) => p.seconds));
  const once = posts.every((p) => p.duplicates === 0 && p.reached === 500 && p.unsigned === 0);
  console.log(`  home timeline meanwhile: p50 ${fmt(out.timeline.p50, 1)} ms, p99 ${fmt(out.timeline.p99, 1)} ms (${out.timeline.requests} requests)`);
  console.log(`  all 500 inboxes reached (from POST /api/v1/statuses returning): median ${fmt(s, 2)} s, each exactly once and signed: ${once ? 'yes' : 'NO'} — ${target('outbound to 500 inboxes', once ? s : NaN, 's', 10, false, 2)}`);
}

export async function run() {
  console.log(`relay benchmark: phases ${PHASES.join(', ')}; ${RUNS} runs each; taskset ${tasksetAvailable() ? 'available' : 'unavailable: nothing pinned'}; load average ${loadAverage()}`);
  const needRig = PHASES.some((p) => p !== 'memory');
  let rig = null;
  let ctx = null;
  let kept = null;
  let sink = null;
  try {
    if (needRig) {
      const started = Date.now();
      rig = await makeRig({ senders: SENDERS });
      ctx = rig.ctx;
      console.log(`rig: relay at ${ctx.relayUrl}, instance's public host ${ctx.tenantHost}, senders at ${ctx.origin} (${SENDERS} RSA keys in ${fmt(ctx.keysMs / 1000, 1)} s); ready in ${fmt((Date.now() - started) / 1000, 1)} s`);
      const idle = await idleTimeline(ctx);
      console.log(`home timeline, idle instance behind the relay: p50 ${fmt(idle.p50, 1)} ms, p99 ${fmt(idle.p99, 1)} ms (${idle.requests} requests)`);
    } else {
      const relayPort = await freePort();
      ctx = { relayPort, relayUrl: `http://127.0.0.1:${relayPort}` };
    }
    if (PHASES.includes('replay') || PHASES.includes('drain')) {
      const started = Date.now();
      const backlog = await prepareBacklog(ctx, rig, { senders: SENDERS, known: SENDERS - NEW, perSender: PER_SENDER });
      rig.instance = rig.relay = null;
      console.log(`replay set-up: ${SENDERS - NEW} known senders met the instance; ${backlog.total.toLocaleString('en')} activities signed, then accepted by the relay in ${fmt(backlog.post.seconds, 1)} s (${fmt(backlog.total / backlog.post.seconds, 0)}/s flat out, 16 connections, the instance offline; ${JSON.stringify(backlog.post.statuses)}); set-up ${fmt((Date.now() - started) / 1000, 0)} s; load average ${loadAverage()}`);
      if (PHASES.includes('replay')) {
        const runs = [];
        const direct = [];
        const compared = [];
        const phaseStarted = Date.now();
        let planned = RUNS;
        for (let r = 0; r < planned; r++) {
          const runStarted = Date.now();
          // Another run only while it fits in the budget, judged by the length of the one before.
          const fits = (lasted) => Date.now() - phaseStarted + lasted <= REPLAY_BUDGET_S * 1000;
          if (COMPARE_CLI && r % 2 === 0) compared.push((await replayRun(ctx, backlog, { bin: COMPARE_CLI })).result);
          const out = await replayRun(ctx, backlog, { keep: PHASES.includes('outbound') });
          if (COMPARE_CLI && r % 2 === 1) compared.push((await replayRun(ctx, backlog, { bin: COMPARE_CLI })).result);
          runs.push(out.result);
          console.log(`  replay run ${r + 1}: ${fmt(out.result.fromConnect, 1)} s from the tunnel connecting (${fmt(out.result.perSFromConnect, 0)}/s); load average ${loadAverage()}`);
          if (DIRECT) {
            const d = await directRun(ctx, backlog);
            direct.push(d);
            console.log(`  direct run ${r + 1}: ${fmt(d.seconds, 1)} s (${fmt(d.perS, 0)}/s); load average ${loadAverage()}`);
          }
          if (r === planned - 1 || !fits(Date.now() - runStarted)) planned = r + 1;
          if (out.instance) {
            // The last run's data is kept for the outbound phase; the others' go.
            await stopProc(out.instance.child);
            await stopProc(out.relay.child);
            if (kept) for (const d of Object.values(kept)) rmSync(d, { recursive: true, force: true });
            kept = { relayDir: out.relayDir, instanceDir: out.instanceDir };
          }
        }
        if (planned < RUNS) console.log(`  ${planned} of ${RUNS} replay runs: no more fit in BENCH_RELAY_REPLAY_BUDGET_S=${REPLAY_BUDGET_S} s`);
        printReplay(backlog, runs);
        if (DIRECT) printDirect(backlog, direct, runs);
        if (COMPARE_CLI) printCompared(runs, compared);
      }
      if (PHASES.includes('drain')) {
        // The relay's replay alone (an instance that acknowledges at once): its capacity and cost.
        for (const pace of [0, DRAIN_PACE]) {
          const options = pace ? { rate: pace, count: Math.min(backlog.total, pace * 10) } : {};
          const drains = [];
          for (let r = 0; r < RUNS; r++) {
            const other = COMPARE_CLI && r % 2 === 1 ? await relayDrainRun(ctx, backlog, { ...options, bin: COMPARE_CLI }) : null;
            const own = await relayDrainRun(ctx, backlog, options);
            drains.push({ own, other: other ?? (COMPARE_CLI ? await relayDrainRun(ctx, backlog, { ...options, bin: COMPARE_CLI }) : null) });
          }
          printDrains(drains, pace);
        }
      }
      console.log(`load average: ${loadAverage()}`);
    } else if (rig) {
      await stopProc(rig.instance.child);
      await stopProc(rig.relay.child);
      rig.instance = rig.relay = null;
    }
    if (PHASES.includes('accept')) {
      const prepared = await prepareAccept(ctx, { senders: SENDERS, runs: RUNS, rate: ACCEPT_RATE, seconds: ACCEPT_SECONDS });
      printAccept(await acceptRuns(ctx, { runs: RUNS, rate: ACCEPT_RATE, perRun: prepared.perRun, floor: prepared.floor }));
      console.log(`load average: ${loadAverage()}`);
    }
    if (PHASES.includes('memory')) {
      const cliAddMs = timeCliAdd();
      const runs = [];
      for (let r = 0; r < RUNS; r++) runs.push({ ...(await memoryRun(ctx, { tenants: TENANTS })), cliAddMs });
      printMemory(runs);
      console.log(`load average: ${loadAverage()}`);
    }
    if (PHASES.includes('outbound')) {
      const s = await startSink();
      sink = s.sink;
      const dirs = kept ?? { relayDir: ctx.relayDir, instanceDir: ctx.instanceDir };
      printOutbound(await outboundRuns(ctx, { ...dirs, posts: OUTBOUND_POSTS, sink: s.sink, sinkPort: s.port }));
      console.log(`load average: ${loadAverage()}`);
    }
    console.log('\nrelay targets (medians of the runs):');
    console.table(summary);
  } finally {
    if (rig?.instance) await stopProc(rig.instance.child);
    if (rig?.relay) await stopProc(rig.relay.child);
    ctx?.peers?.kill('SIGTERM');
    sink?.kill('SIGTERM');
    const dirs = [ctx?.relayDir, ctx?.instanceDir, kept?.relayDir, kept?.instanceDir].filter(Boolean);
    if (process.env.BENCH_KEEP) console.log(`data kept in ${dirs.join(', ')}`);
    else for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}
