// Processes and readings for the relay benchmark (bench/relay.mjs): `hearth relay serve` and
// `hearth serve --relay` from dist (bin/hearth.js), pinned to cores with taskset where it exists,
// their output kept for errors; CPU time from /proc; the relay's /metrics; a garbage collection
// in a process started with the inspector; quantiles of a Prometheus histogram.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import WebSocket from 'ws';
import { root } from './procs.mjs';
import { tasksetAvailable } from './paced-load.mjs';

const cli = process.env.BENCH_CLI ?? join(root, 'bin', 'hearth.js');

/** The compiled code the processes run (that of BENCH_CLI when given), for helpers that load parts of it. */
export const distDir = join(dirname(cli), '..', 'dist');

/** A free TCP port on every address. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '0.0.0.0', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts `hearth ARGS` pinned to `cpus` (taskset's list syntax; null for anywhere), with node
 * flags `nodeArgs` before the script (`bin`: another build's bin/hearth.js). Resolves once a line of its output matches `ready`, to
 * {child, match, startedAt (hrtime at spawn, bigint), readyAt (hrtime), output(), inspector}; the
 * inspector URL is there when `nodeArgs` asked for one.
 */
export function startHearthProc({ cpus, args, nodeArgs = [], ready, env = {}, timeoutMs = 60_000, bin = cli }) {
  const node = [process.execPath, ...nodeArgs, bin, ...args];
  const [cmd, ...rest] = cpus !== null && tasksetAvailable() ? ['taskset', '-c', cpus, ...node] : node;
  const startedAt = process.hrtime.bigint();
  const child = spawn(cmd, rest, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let inspector = null;
  const keep = (d) => {
    out += d.toString();
    if (out.length > 40_000) out = out.slice(-20_000);
  };
  return new Promise((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      child.kill('SIGKILL');
      reject(new Error(`hearth ${args.join(' ')} was not ready in ${timeoutMs} ms:\n${out.slice(-4000)}`));
    }, timeoutMs);
    const check = () => {
      inspector ??= /Debugger listening on (ws:\/\/\S+)/.exec(out)?.[1] ?? null;
      const match = ready.exec(out);
      if (match && !done && (inspector || !nodeArgs.some((a) => a.startsWith('--inspect')))) {
        done = true;
        clearTimeout(timer);
        resolve({ child, match, startedAt, readyAt: process.hrtime.bigint(), output: () => out, inspector });
      }
    };
    child.stdout.on('data', (d) => {
      keep(d);
      check();
    });
    child.stderr.on('data', (d) => {
      keep(d);
      // Node's own warnings and the servers' errors stay visible.
      if (!/Debugger (listening|attached)|For help, see|Waiting for the debugger/.test(d.toString())) process.stderr.write(d);
      check();
    });
    child.once('exit', (code, signal) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      reject(new Error(`hearth ${args.join(' ')} exited early (${code ?? signal}):\n${out.slice(-4000)}`));
    });
  });
}

/** Stops a process with SIGTERM (a clean end: profiles written, databases closed) and waits for it. */
export function stopProc(child, timeoutMs = 30_000) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** CPU seconds (user + system, all threads) a process has used, from /proc. */
export function cpuSeconds(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** CPU seconds of each thread of a process, by thread name (main thread, libuv pool, V8 workers…). */
export function threadCpu(pid) {
  const out = {};
  let tids = [];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out;
  }
  for (const tid of tids) {
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

/** The threads' CPU between two threadCpu readings, the busiest first, those above 10 ms. */
export function threadDelta(before, after) {
  return Object.entries(after)
    .map(([name, s]) => [name, s - (before[name] ?? 0)])
    .filter(([, s]) => s >= 0.01)
    .sort((a, b) => b[1] - a[1]);
}

/** Resident memory of a process in KiB, from /proc. */
export function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
}

/**
 * Talks to a process's inspector (started with --inspect=127.0.0.1:0): full garbage collections,
 * then `process.memoryUsage()` as the process sees it.
 */
export async function collectGarbage(inspectorUrl, times = 2) {
  const ws = new WebSocket(inspectorUrl);
  await new Promise((resolve, reject) => {
    ws.once('open', resolve);
    ws.once('error', reject);
  });
  let id = 0;
  const call = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const mine = ++id;
      const onMessage = (data) => {
        const m = JSON.parse(data.toString());
        if (m.id !== mine) return;
        ws.off('message', onMessage);
        if (m.error) reject(new Error(`${method}: ${m.error.message}`));
        else resolve(m.result);
      };
      ws.on('message', onMessage);
      ws.send(JSON.stringify({ id: mine, method, params }));
    });
  try {
    for (let i = 0; i < times; i++) await call('HeapProfiler.collectGarbage');
    const r = await call('Runtime.evaluate', { expression: 'JSON.stringify(process.memoryUsage())', returnByValue: true });
    return JSON.parse(r.result.value);
  } finally {
    ws.close();
  }
}

/** The relay's /metrics text. */
export async function scrapeMetrics(relayUrl) {
  const res = await fetch(`${relayUrl}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

/** A histogram's cumulative buckets from a scrape: [[le, count], …] with +Inf last. */
export function histogram(text, name) {
  const out = [];
  for (const m of text.matchAll(new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)$`, 'gm'))) out.push([m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2])]);
  return out;
}

/** One gauge or counter without labels from a scrape. */
export function metricValue(text, name) {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/**
 * A quantile of the observations made between two scrapes of the same histogram, as Prometheus's
 * histogram_quantile estimates it: linear within the bucket that holds it (the bucket's upper
 * bound is the honest "at most"). Returns {value, le, count}.
 */
export function histogramQuantile(before, after, q) {
  const deltas = after.map(([le, n], i) => [le, n - (before[i]?.[1] ?? 0)]);
  const count = deltas.at(-1)?.[1] ?? 0;
  if (count === 0) return { value: NaN, le: NaN, count };
  const rank = q * count;
  let prevLe = 0;
  let prevN = 0;
  for (const [le, n] of deltas) {
    if (n >= rank) {
      if (le === Infinity) return { value: prevLe, le, count };
      return { value: prevLe + ((le - prevLe) * (rank - prevN)) / Math.max(1, n - prevN), le, count };
    }
    prevLe = le;
    prevN = n;
  }
  return { value: NaN, le: NaN, count };
}

/** The median of the finite values (the mean of the middle two for an even count). */
export function median(values) {
  const sorted = values.filter(Number.isFinite).sort((x, y) => x - y);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Waits `ms`. */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Seconds between two hrtime readings (bigint or string). */
export const secondsBetween = (from, to) => Number(BigInt(to) - BigInt(from)) / 1e9;
