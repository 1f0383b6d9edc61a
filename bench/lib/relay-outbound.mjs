// Phase 4 of the relay benchmark (bench/relay.mjs): one public post from the instance behind the
// relay to 5,000 remote followers on 500 instances (10 each, each with a shared inbox), seeded
// straight into the instance's SQLite file (bench/lib/seed-followers.mjs). The 500 instances are
// 500 loopback addresses reaching one sink server (bench/lib/fed-peers.mjs, as in the federation
// benchmark), which records when each shared inbox is first reached and checks that every POST is
// signed, with a Digest and a Content-Length. The instance signs each delivery and hands it to
// the relay through the tunnel; the relay sends it (after the post itself is on the relay, as
// deliveries wait for what they point at). Measured: from POST /api/v1/statuses returning to the
// last inbox reached, each exactly once; several posts in a row.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { instanceHost } from '../federation.mjs';
import { nextMessage, spawnPinned, startPacedLoad } from './paced-load.mjs';
import { seedRemoteFollowers } from './seed-followers.mjs';
import { cpuSeconds, secondsBetween, sleep, stopProc } from './relay-procs.mjs';
import { OTHER_CPUS, SERVER_CPUS, startInstance, startRelay, waitConnected } from './relay-setup.mjs';

const INSTANCES = 500;
const PER_INSTANCE = 10;

/** Starts the sink (in the federation benchmark's peers process); resolves to it and its port. */
export async function startSink() {
  const sink = spawnPinned(OTHER_CPUS, fileURLToPath(new URL('./fed-peers.mjs', import.meta.url)), [], { HEARTH_FED_PEERS: '1' });
  await nextMessage(sink, 'ready');
  const ready = nextMessage(sink, 'sink');
  sink.send({ type: 'sink' });
  return { sink, port: (await ready).port };
}

const ask = (child, type) => {
  const reply = nextMessage(child, type);
  child.send({ type });
  return reply;
};

/**
 * Runs the phase on the data directories given (both processes stopped): followers seeded, relay
 * and instance started, `posts` posts one after the other. Resolves to each post's figures.
 */
export async function outboundRuns(ctx, { relayDir, instanceDir, posts, sink, sinkPort }) {
  seedRemoteFollowers(join(instanceDir, 'hearth.sqlite3'), { username: 'reader', instances: INSTANCES, perInstance: PER_INSTANCE, host: instanceHost, port: sinkPort });
  const expected = new Set(Array.from({ length: INSTANCES }, (_, i) => `${instanceHost(i)}:${sinkPort}/inbox`));
  let relay = null;
  let instance = null;
  let clients = null;
  try {
    relay = await startRelay(ctx, { dir: relayDir, cpus: OTHER_CPUS, phase: 'outbound' });
    instance = await startInstance(ctx, { dir: instanceDir, cpus: SERVER_CPUS, phase: 'outbound' });
    await waitConnected(instanceDir);
    clients = await startPacedLoad(OTHER_CPUS, { url: `${ctx.instanceUrl}/api/v1/timelines/home`, headers: ctx.headers, clients: 4, intervalMs: 100 });
    await sleep(1000);
    const out = [];
    for (let n = 0; n < posts; n++) {
      await ask(sink, 'sink-reset');
      const cpu0 = cpuSeconds(instance.child.pid);
      const relayCpu0 = cpuSeconds(relay.child.pid);
      const res = await fetch(`${ctx.instanceUrl}/api/v1/statuses`, {
        method: 'POST',
        headers: { ...ctx.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ status: `One public post through the relay for 5,000 followers on 500 instances (${n + 1})`, visibility: 'public' }),
      });
      const returned = process.hrtime.bigint();
      if (res.status !== 200) throw new Error(`POST /api/v1/statuses answered ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
      let report = null;
      const started = Date.now();
      while (Date.now() - started < 120_000) {
        report = await ask(sink, 'sink-report');
        if (report.inboxes.length >= INSTANCES) break;
        await sleep(50);
      }
      const cpu = cpuSeconds(instance.child.pid) - cpu0;
      const relayCpu = cpuSeconds(relay.child.pid) - relayCpu0;
      // Anything sent twice would arrive shortly after.
      await sleep(2000);
      report = await ask(sink, 'sink-report');
      const firsts = report.inboxes.filter((x) => expected.has(x.inbox)).map((x) => BigInt(x.first));
      const lastFirst = firsts.reduce((a, b) => (b > a ? b : a), 0n);
      out.push({
        reached: firsts.length,
        unexpected: report.inboxes.filter((x) => !expected.has(x.inbox)).length,
        duplicates: report.inboxes.filter((x) => x.hits > 1).length,
        posts: report.posts,
        unsigned: report.unsigned,
        noDigest: report.noDigest,
        noLength: report.noLength,
        seconds: firsts.length === INSTANCES ? secondsBetween(returned, lastFirst) : NaN,
        cpu,
        relayCpu,
      });
    }
    const timeline = await clients.stop();
    clients = null;
    return { posts: out, timeline };
  } finally {
    await clients?.stop().catch(() => {});
    if (instance) await stopProc(instance.child);
    if (relay) await stopProc(relay.child);
  }
}
