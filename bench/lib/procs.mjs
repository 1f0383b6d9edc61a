// Helpers to run Hearth and comparison servers as child processes for benchmarks.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
// BENCH_CLI runs another build of the CLI (e.g. a snapshot, to compare before and after a change).
const cli = process.env.BENCH_CLI ?? join(root, 'bin', 'hearth.js');

/** A fresh data directory for a benchmark run. */
export function freshDataDir(name) {
  return mkdtempSync(join(tmpdir(), `hearth-bench-${name}-`));
}

/** Runs a `hearth` CLI command to completion and returns its standard output. */
export function hearth(args) {
  return execFileSync(process.execPath, [cli, ...args], { cwd: root, encoding: 'utf8' }).trim();
}

/** Starts a child process and resolves once a line of its output matches `ready`. */
export function startProcess(args, ready, env = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let buffer = '';
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const match = ready.exec(buffer);
      if (match) resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`process exited early (${code}): ${buffer}`)));
  });
}

/** Starts `hearth serve` on a free port; resolves to its URL and process. */
export async function startHearth(dataDir, extra = []) {
  // BENCH_SERVER_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server under load.
  const nodeArgs = process.env.BENCH_SERVER_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const { child, match } = await startProcess([...nodeArgs, cli, 'serve', '--data', dataDir, '--port', '0', ...extra], /listening on (http:\/\/\S+)/);
  return { child, url: match[1] };
}

/** Starts the bare Node comparison server answering `body` with `contentType`. */
export async function startBare(body, contentType) {
  const { child, match } = await startProcess([join(root, 'bench', 'lib', 'bare-server.mjs')], /listening on (http:\/\/\S+)/, {
    BARE_BODY: body,
    BARE_TYPE: contentType,
  });
  return { child, url: match[1] };
}

/** Runs the load generator in its own process. */
export function load(options) {
  const out = execFileSync(process.execPath, [join(root, 'bench', 'lib', 'load-worker.mjs'), JSON.stringify(options)], { encoding: 'utf8' });
  return JSON.parse(out);
}

/** Resident memory of a process in MiB, from /proc. */
export function rssMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return kb / 1024;
}

/** Stops a child process and waits for it to exit. */
export function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

/** Formats a number with fixed decimals. */
export const fmt = (n, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');

const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((x, y) => x - y);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};

/**
 * Measures two targets (Hearth and its bare comparison) in alternating short rounds, so that both
 * see the same load from whatever else runs on the machine; returns the median of each figure.
 * BENCH_ROUNDS sets the number of rounds per target (default 3), each durationMs / rounds long.
 */
export function loadPair(first, second, { concurrency, durationMs }) {
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
  const results = [[], []];
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? [0, 1] : [1, 0];
    for (const i of order) {
      const target = i === 0 ? first : second;
      results[i].push(load({ ...target, concurrency, durationMs: Math.max(500, Math.round(durationMs / rounds)), warmupMs: r === 0 ? 500 : 200 }));
    }
  }
  return results.map((rs) => ({
    rps: median(rs.map((x) => x.rps)),
    p50: median(rs.map((x) => x.p50)),
    p99: median(rs.map((x) => x.p99)),
    errors: rs.reduce((n, x) => n + x.errors, 0),
  }));
}

/** The machine's load averages (1, 5, 15 minutes), as `uptime` prints them. */
export function loadAverage() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
