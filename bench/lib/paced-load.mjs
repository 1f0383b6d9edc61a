// Paced clients for "does the REST API stay responsive while the server is busy with something
// else": `clients` loops, each sending one GET every `intervalMs` over its own keep-alive
// connection (as apps refreshing a timeline do, rather than back-to-back requests that would take
// the server's CPU from the work being measured). Runs as a child process driven over IPC
// (`start`, then `stop` answers with the figures), so it shares no event loop with the server.
import { spawn, spawnSync } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

let hasTaskset = null;
/** Whether `taskset` can pin processes to cores here. */
export function tasksetAvailable() {
  if (hasTaskset === null) {
    hasTaskset = spawnSync('taskset', ['-c', '0', 'true']).status === 0;
  }
  return hasTaskset;
}

/**
 * Spawns a Node script, pinned to `cpus` (e.g. '1') with taskset when available, with stdout and
 * stderr inherited and an IPC channel.
 */
export function spawnPinned(cpus, script, args = [], env = {}) {
  const node = [process.execPath, script, ...args];
  const [cmd, ...rest] = cpus !== null && tasksetAvailable() ? ['taskset', '-c', cpus, ...node] : node;
  return spawn(cmd, rest, { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

/** Waits for the next IPC message of the given type from a child (rejects on its early exit or an error message). */
export function nextMessage(child, type) {
  return new Promise((resolve, reject) => {
    const onMessage = (m) => {
      if (m.type === 'error') {
        cleanup();
        reject(new Error(m.message));
      } else if (m.type === type) {
        cleanup();
        resolve(m);
      }
    };
    const onExit = (code) => {
      cleanup();
      reject(new Error(`child exited (${code}) while waiting for ${type}`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Starts paced clients in a pinned child; `stop()` resolves to {requests, errors, p50, p99, max}. */
export async function startPacedLoad(cpus, options) {
  const child = spawnPinned(cpus, fileURLToPath(import.meta.url), [], { HEARTH_PACED_LOAD: '1' });
  await nextMessage(child, 'ready');
  child.send({ type: 'start', ...options });
  await nextMessage(child, 'started');
  return {
    async stop() {
      const result = nextMessage(child, 'result');
      child.send({ type: 'stop' });
      const r = await result;
      child.kill('SIGTERM');
      return r;
    },
  };
}

async function worker() {
  // Ends with the benchmark that started it, whatever happened there.
  process.on('disconnect', () => process.exit(0));
  let stop = null;
  process.on('message', (m) => {
    if (m.type === 'stop') stop?.();
    if (m.type !== 'start') return;
    const target = new URL(m.url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: m.clients });
    const latencies = [];
    let errors = 0;
    let running = true;
    const one = () =>
      new Promise((resolve) => {
        const start = process.hrtime.bigint();
        const req = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, headers: m.headers ?? {}, agent }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
            else errors++;
            resolve();
          });
        });
        req.on('error', () => {
          errors++;
          resolve();
        });
        req.end();
      });
    const loop = async (i) => {
      // Spread the clients over the interval.
      await new Promise((r) => setTimeout(r, (m.intervalMs * i) / m.clients));
      while (running) {
        const started = Date.now();
        await one();
        await new Promise((r) => setTimeout(r, Math.max(0, m.intervalMs - (Date.now() - started))));
      }
    };
    const loops = Array.from({ length: m.clients }, (_, i) => loop(i));
    stop = async () => {
      running = false;
      await Promise.all(loops);
      agent.destroy();
      latencies.sort((a, b) => a - b);
      const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
      process.send({ type: 'result', requests: latencies.length, errors, p50: pct(50), p99: pct(99), max: latencies[latencies.length - 1] ?? NaN });
    };
    process.send({ type: 'started' });
  });
  process.send({ type: 'ready' });
}

if (process.env.HEARTH_PACED_LOAD === '1') await worker();
