// Issue 17 benchmark: the desktop app's server process, as its server host runs it.
// (a) Start time to ready (the child says ready and GET /health answers 200), with a data directory
//     of 1,000,000 statuses, the median of 5 starts after one unmeasured start (which migrates the
//     cached directory if the schema moved on, and warms the page cache); beside it the same on an
//     empty data directory, so that what grows with the statuses shows as the difference. Beside
//     the time, the CPU time the server process used until ready (the load of other processes on
//     the machine moves it much less). Target ≤ 1 s.
// (b) Idle resident memory of the server process 2 s and 30 s after ready: the 1M directory, an
//     empty one (local-only) and an empty one with a public origin (Fedify loaded). Target ≤ 70 MiB.
//     RSS is split into anonymous memory (mostly V8's heap) and file pages (mostly the Node binary's
//     code and data that the process touched).
// The server host is electron/host/server-host.ts (compiled to dist/electron/host/) with Node's
// spawner, as the tests use it; where it is not built, `hearth serve` is started instead and
// timed to /health. The 1M directory is generated once (bench/lib/seed-timeline.mjs: direct SQLite
// inserts after the CLI migrated and created the owner) and kept under the system's temporary
// folder (BENCH_DESKTOP_CACHE), keyed by the seeder's source and the count, so reruns reuse it.
// BENCH_DESKTOP_STATUSES changes the count; BENCH_DESKTOP_STARTS the number of measured starts.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fmt, freshDataDir, hearth, loadAverage, root, stop } from './lib/procs.mjs';
import { seedHomeTimeline } from './lib/seed-timeline.mjs';

const STATUSES = Number(process.env.BENCH_DESKTOP_STATUSES ?? 1_000_000);
const STARTS = Number(process.env.BENCH_DESKTOP_STARTS ?? 5);
const CACHE = process.env.BENCH_DESKTOP_CACHE ?? join(tmpdir(), 'hearth-bench-cache');
const HOST = join(root, 'dist', 'electron', 'host', 'server-host.js');
const SPAWN = join(root, 'dist', 'electron', 'host', 'spawn.js');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The data directory with STATUSES statuses, generated on first use and kept in CACHE. */
function seededDataDir() {
  const seeder = readFileSync(join(root, 'bench', 'lib', 'seed-timeline.mjs'));
  const key = createHash('sha256').update(seeder).update(String(STATUSES)).digest('hex').slice(0, 12);
  const dir = join(CACHE, `desktop-${STATUSES}-${key}`);
  if (existsSync(join(dir, 'hearth.sqlite3'))) {
    console.log(`data directory with ${STATUSES.toLocaleString('en')} statuses: ${dir} (cached)`);
    return dir;
  }
  // Made beside its final place and renamed when complete: an interrupted run leaves nothing reused.
  mkdirSync(CACHE, { recursive: true });
  const making = `${dir}.making-${process.pid}`;
  rmSync(making, { recursive: true, force: true });
  const started = Date.now();
  hearth(['account', 'create', '--data', making, '--username', 'owner', '--password', 'owner-password-1', '--role', 'owner']);
  seedHomeTimeline(join(making, 'hearth.sqlite3'), { readerUsername: 'owner', total: STATUSES });
  renameSync(making, dir);
  console.log(`data directory with ${STATUSES.toLocaleString('en')} statuses generated in ${fmt((Date.now() - started) / 1000)} s: ${dir}`);
  return dir;
}

/** CPU time (user and system) a process has used so far, in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  // utime and stime, fields 14 and 15 of stat, in clock ticks (100 a second on Linux).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident memory of a process, in MiB: total, anonymous and file-backed. */
function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? NaN) / 1024;
  return { rss: kib('VmRSS'), anon: kib('RssAnon'), file: kib('RssFile') };
}

/**
 * Starts the server on `dataDir` the way the desktop app does (through the server host when it is
 * built); resolves to the time it took to be ready, its pid and a stop function.
 */
async function startServer(dataDir, scratch) {
  if (existsSync(HOST) && existsSync(SPAWN)) {
    const { ServerHost } = await import(pathToFileURL(HOST).href);
    const { nodeSpawner } = await import(pathToFileURL(SPAWN).href);
    const host = new ServerHost({ dataDir, port: 0, spawner: nodeSpawner(), logFile: join(scratch, 'hearth-server.log') });
    const started = performance.now();
    await host.start();
    const ms = performance.now() - started;
    return { via: 'server host', ms, cpu: cpuMs(host.pid), pid: host.pid, stop: () => host.stop() };
  }
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'bin', 'hearth.js'), 'serve', '--data', dataDir, '--port', '0'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`hearth serve exited (${code}): ${out}`)));
  });
  for (;;) {
    const res = await fetch(`${url}/health`).catch(() => null);
    if (res?.status === 200) break;
    await sleep(10);
  }
  return { via: 'hearth serve', ms: performance.now() - started, cpu: cpuMs(child.pid), pid: child.pid, stop: () => stop(child) };
}

/** One unmeasured start, then STARTS measured ones; the median and every figure. */
async function startTimes(dataDir, scratch) {
  const warm = await startServer(dataDir, scratch);
  await warm.stop();
  const times = [];
  const cpu = [];
  let via = warm.via;
  for (let i = 0; i < STARTS; i++) {
    const server = await startServer(dataDir, scratch);
    times.push(server.ms);
    cpu.push(server.cpu);
    via = server.via;
    await server.stop();
  }
  return { via, median: median(times), times, cpu: median(cpu) };
}

/** Starts a server and samples its memory 2 s and 30 s after ready (the 30 s wait overlaps the others'). */
async function idleMemory(label, dataDir, scratch) {
  const server = await startServer(dataDir, scratch);
  await sleep(2000);
  const early = memory(server.pid);
  return {
    label,
    early,
    later: (async () => {
      await sleep(28_000);
      const later = memory(server.pid);
      await server.stop();
      return later;
    })(),
  };
}

export async function run() {
  const scratch = freshDataDir('desktop');
  const seeded = seededDataDir();
  const empty = join(scratch, 'empty');
  // The empty directories are migrated and given an owner first, as the seeded one was.
  hearth(['account', 'create', '--data', empty, '--username', 'owner', '--password', 'owner-password-1', '--role', 'owner']);
  const origin = join(scratch, 'origin');
  hearth(['account', 'create', '--data', origin, '--username', 'owner', '--password', 'owner-password-1', '--role', 'owner']);
  writeFileSync(join(origin, 'hearth.json'), JSON.stringify({ origin: 'https://hearth-bench.example' }));

  console.log(`load average ${loadAverage()}`);
  const big = await startTimes(seeded, scratch);
  const small = await startTimes(empty, scratch);
  console.table([
    { data: `${STATUSES.toLocaleString('en')} statuses`, 'median ms': fmt(big.median, 0), 'each ms': big.times.map((t) => fmt(t, 0)).join(' '), 'server CPU ms': fmt(big.cpu, 0), via: big.via },
    { data: 'empty', 'median ms': fmt(small.median, 0), 'each ms': small.times.map((t) => fmt(t, 0)).join(' '), 'server CPU ms': fmt(small.cpu, 0), via: small.via },
  ]);
  console.log(`start to ready with ${STATUSES.toLocaleString('en')} statuses: ${fmt(big.median, 0)} ms (target ≤ 1000 ms: ${big.median <= 1000 ? 'met' : 'not met'}); ` +
    `the statuses add ${fmt(big.median - small.median, 0)} ms (server CPU to ready: ${fmt(big.cpu, 0)} against ${fmt(small.cpu, 0)} ms); load average ${loadAverage()}`);

  const runs = [];
  for (const [label, dir] of [[`${STATUSES.toLocaleString('en')} statuses`, seeded], ['empty, local-only', empty], ['empty, with an origin', origin]]) {
    runs.push(await idleMemory(label, dir, scratch));
  }
  const rows = [];
  for (const r of runs) {
    const later = await r.later;
    for (const [when, m] of [['2 s', r.early], ['30 s', later]]) {
      rows.push({ data: r.label, after: when, 'RSS MiB': fmt(m.rss), 'anonymous MiB': fmt(m.anon), 'file MiB': fmt(m.file) });
    }
  }
  console.table(rows);
  const worst = Math.max(...rows.filter((r) => r.data !== 'empty, with an origin').map((r) => Number(r['RSS MiB'])));
  console.log(`idle resident memory, local-only: up to ${fmt(worst)} MiB (target ≤ 70 MiB: ${worst <= 70 ? 'met' : 'not met'}); load average ${loadAverage()}`);
  rmSync(scratch, { recursive: true, force: true });
}
