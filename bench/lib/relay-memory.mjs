// Phase 3 of the relay benchmark (bench/relay.mjs): the relay's memory per idle connected tenant.
// A fresh relay's store gets N tenants (straight through the store's own addTenant, before the
// relay starts: `hearth relay tenant add` is a process per tenant, timed once for comparison);
// the relay starts with the inspector on a loopback port (only so that the benchmark can ask it
// for full garbage collections); a load process (bench/lib/relay-tunnels.mjs) enrols and connects
// N idle tunnels. The relay's resident memory (VmRSS) and heap are read before and after, each
// after two full collections, and once more after without one.
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { freshDataDir, hearth } from './procs.mjs';
import { nextMessage, spawnPinned } from './paced-load.mjs';
import { collectGarbage, cpuSeconds, distDir, metricValue, rssKiB, scrapeMetrics, sleep, stopProc } from './relay-procs.mjs';
import { OTHER_CPUS, SERVER_CPUS, startRelay } from './relay-setup.mjs';

const ask = (child, type) => {
  const reply = nextMessage(child, type);
  child.send({ type });
  return reply;
};

/** How long the tunnels sit idle before the reading after (logins, backlog reports and first polls done). */
const SETTLE_MS = 6000;

const dist = (path) => import(pathToFileURL(join(distDir, path)).href);

/** Adds `count` tenants to a relay store in `dir`; resolves to their enrolment codes. */
async function addTenants(dir, count) {
  const { openRelayStore } = await dist('relay/store/index.js');
  const { hashCode } = await dist('relay/tunnel/server.js');
  const store = await openRelayStore({ dataDir: dir, serving: false });
  const codes = [];
  try {
    const now = Date.now();
    const adds = [];
    for (let i = 0; i < count; i++) {
      const code = randomBytes(10).toString('hex').toUpperCase();
      codes.push(code);
      const host = `t${i}.tenants.bench.example`;
      adds.push(store.addTenant({ host, origin: `https://${host}`, codeHash: hashCode(code), codeExpiresAt: now + 86_400_000, quotaBytes: 1024 ** 3, now }));
    }
    await Promise.all(adds);
  } finally {
    await store.close();
  }
  return codes;
}

/** Times one `hearth relay tenant add` (a process of its own), in ms. */
export function timeCliAdd() {
  const dir = freshDataDir('relay-cli-add');
  try {
    hearth(['relay', 'tenant', 'add', '--data', dir, '--host', 'warm.bench.example']);
    const started = Date.now();
    hearth(['relay', 'tenant', 'add', '--data', dir, '--host', 'timed.bench.example']);
    return Date.now() - started;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One run: resolves to the readings. */
export async function memoryRun(ctx, { tenants }) {
  const dir = freshDataDir('relay-memory');
  let relay = null;
  let load = null;
  try {
    const addStarted = Date.now();
    const codes = await addTenants(dir, tenants);
    const addMs = Date.now() - addStarted;
    relay = await startRelay(ctx, { dir, cpus: SERVER_CPUS, phase: 'memory', nodeArgs: ['--inspect=127.0.0.1:0'] });
    const pid = relay.child.pid;
    await sleep(2000);
    const idle = { rss: rssKiB(pid), heap: await collectGarbage(relay.inspector) };
    idle.rssGc = rssKiB(pid);
    load = spawnPinned(OTHER_CPUS, fileURLToPath(new URL('./relay-tunnels.mjs', import.meta.url)), [], { HEARTH_RELAY_TUNNELS: '1' });
    await nextMessage(load, 'ready');
    const cpu0 = cpuSeconds(pid);
    const connected = nextMessage(load, 'connected');
    load.send({ type: 'connect', relayUrl: ctx.relayUrl, codes, concurrency: 20 });
    const c = await connected;
    const connectCpu = cpuSeconds(pid) - cpu0;
    await sleep(SETTLE_MS);
    const cpuIdle0 = cpuSeconds(pid);
    const rssNoGc = rssKiB(pid);
    const heap = await collectGarbage(relay.inspector);
    const rssGc = rssKiB(pid);
    // A little longer idle: what the sessions cost while nothing happens.
    await sleep(5000);
    const idleCpuShare = (cpuSeconds(pid) - cpuIdle0) / 5;
    const metrics = await scrapeMetrics(ctx.relayUrl);
    return {
      tenants,
      addMs,
      connected: c.count,
      failed: c.failed,
      lastError: c.lastError,
      connectS: c.ms / 1000,
      connectCpuMsPer: (connectCpu * 1000) / Math.max(1, c.count),
      gauge: metricValue(metrics, 'hearth_relay_tunnels_connected'),
      open: (await ask(load, 'status')).open,
      before: { rss: idle.rss, rssGc: idle.rssGc, heapUsed: idle.heap.heapUsed / 1024, external: idle.heap.external / 1024 },
      after: { rss: rssNoGc, rssGc, heapUsed: heap.heapUsed / 1024, external: heap.external / 1024 },
      perTenantKiB: (rssGc - idle.rssGc) / Math.max(1, c.count),
      perTenantNoGcKiB: (rssNoGc - idle.rss) / Math.max(1, c.count),
      heapPerTenantKiB: (heap.heapUsed - idle.heap.heapUsed) / 1024 / Math.max(1, c.count),
      idleCpuShare,
    };
  } finally {
    if (load) {
      const closed = nextMessage(load, 'closed').catch(() => {});
      load.send({ type: 'close' });
      await closed;
      load.kill('SIGTERM');
    }
    if (relay) await stopProc(relay.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
