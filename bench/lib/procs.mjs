// Helpers to run Hearth and comparison servers as child processes for benchmarks.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = join(root, 'bin', 'hearth.js');

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
  const { child, match } = await startProcess([cli, 'serve', '--data', dataDir, '--port', '0', ...extra], /listening on (http:\/\/\S+)/);
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
