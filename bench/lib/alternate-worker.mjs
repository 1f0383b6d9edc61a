// Child-process entry: loads several targets in turn, in short slices, and measures each slice's
// requests and the server's CPU time. Reads its options as JSON from argv[2]:
//   { targets: [{ url, headers, method?, body?, pid? }], concurrency, sliceMs, cycles, warmupMs, pid }
// (a target's own pid when the targets are different servers, e.g. two builds side by side; `{n}`
// in a body is replaced by a running number) and prints, per target, the median requests per
// second and server CPU µs per request, and for each pair of targets the median of each cycle's
// ratio of their rates and of their CPU costs. Slices of the targets follow each other closely
// (the order turning each cycle), so a ratio compares requests made under the same load from
// whatever else runs on the machine: what a shared machine moves, it moves for both.
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';

const { targets, concurrency, sliceMs = 300, cycles = 20, warmupMs = 500, pid } = JSON.parse(process.argv[2]);

/** Nanoseconds the server's threads have run on a CPU (every thread: the event loop, GC, libuv's pool). */
function serverCpuNs(pid) {
  let total = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended meanwhile.
    }
  }
  return total;
}

const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: concurrency }));
const parsed = targets.map((t) => new URL(t.url));
let current = 0;
let completed = 0;
let errors = 0;
let stop = false;
// Numbers the bodies sent (`{n}` in a body), so that posts differ.
let sent = 0;

function one() {
  const i = current;
  const target = parsed[i];
  return new Promise((resolve) => {
    const { method = 'GET', body = null, headers = {} } = targets[i];
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers, agent: agents[i] }, (res) => {
      res.on('data', () => {});
      res.on('end', () => {
        completed++;
        if (res.statusCode < 200 || res.statusCode >= 300) errors++;
        resolve();
      });
    });
    req.on('error', () => {
      errors++;
      resolve();
    });
    if (body === null) req.end();
    else {
      const payload = Buffer.from(body.replaceAll('{n}', String(sent++)));
      req.setHeader('content-length', payload.length);
      req.end(payload);
    }
  });
}

const loops = Array.from({ length: concurrency }, async () => {
  while (!stop) await one();
});
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Warm-up: every target in turn.
for (let i = 0; i < targets.length; i++) {
  current = i;
  await sleep(warmupMs / targets.length);
}

const slices = targets.map(() => []);
for (let c = 0; c < cycles; c++) {
  for (let k = 0; k < targets.length; k++) {
    const i = (k + c) % targets.length;
    current = i;
    const done0 = completed;
    const serverPid = targets[i].pid ?? pid;
    const cpu0 = serverCpuNs(serverPid);
    const t0 = process.hrtime.bigint();
    await sleep(sliceMs);
    const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
    const n = completed - done0;
    slices[i][c] = { rps: n / seconds, cpuUs: n > 0 ? (serverCpuNs(serverPid) - cpu0) / 1000 / n : NaN };
  }
}
stop = true;
await Promise.all(loops);
for (const a of agents) a.destroy();

const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((x, y) => x - y);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};
const result = targets.map((_, i) => ({
  rps: median(slices[i].map((s) => s.rps)),
  cpuUs: median(slices[i].map((s) => s.cpuUs)),
  // Against each target j, cycle by cycle: rate (this ÷ j) and CPU per request (this ÷ j).
  rate: targets.map((__, j) => median(slices[i].map((s, c) => s.rps / slices[j][c].rps))),
  cpu: targets.map((__, j) => median(slices[i].map((s, c) => s.cpuUs / slices[j][c].cpuUs))),
}));
process.stdout.write(JSON.stringify({ targets: result, completed, errors }));
