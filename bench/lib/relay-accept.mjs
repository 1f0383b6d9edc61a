// Phase 2 of the relay benchmark (bench/relay.mjs): the relay's accept latency. The relay runs
// alone on the measured core with its tenant's data (the instance offline: nothing is replayed,
// every POST is verified at the edge, written to disk and answered); after a warm-up in which
// each sender posts once (so the relay fetches and keeps every key), the senders POST public
// notes at a steady rate, open loop, for a few seconds per run. Measured: the time to the 202 as
// the client sees it (p50, p99, max), and the relay's own histogram (hearth_relay_accept_seconds,
// the difference of two scrapes of /metrics around each run).
import { cpSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { freshDataDir } from './procs.mjs';
import { nextMessage } from './paced-load.mjs';
import { cpuSeconds, histogram, histogramQuantile, scrapeMetrics, sleep, stopProc, threadCpu, threadDelta } from './relay-procs.mjs';
import { SERVER_CPUS, startRelay } from './relay-setup.mjs';

const ask = (peers, message, answer) => {
  const reply = nextMessage(peers, answer);
  peers.send(message);
  return reply;
};

const HISTOGRAM = 'hearth_relay_accept_seconds';

/** The light load that shows the latency without queueing: requests per second, for two seconds. */
const FLOOR_RATE = 50;
const FLOOR_SECONDS = 2;

/**
 * Signs what the phase sends: one note per sender (the warm-up), then FLOOR_RATE × FLOOR_SECONDS
 * notes (the light load) and runs × rate × seconds notes.
 */
export async function prepareAccept(ctx, { senders, runs, rate, seconds }) {
  const warm = await ask(ctx.peers, { type: 'sign', name: 'accept-warm', kind: 'warm', inbox: ctx.inbox, from: 0, to: senders, tag: 'aw' }, 'signed');
  const perRun = Math.round(rate * seconds);
  const floor = FLOOR_RATE * FLOOR_SECONDS;
  const notes = await ask(ctx.peers, { type: 'sign', name: 'accept', kind: 'notes', inbox: ctx.inbox, senders, count: floor + perRun * runs, tag: 'a' }, 'signed');
  return { perRun, floor, signMs: warm.ms + notes.ms };
}

/** fdatasync latency of the disk under `dir` (200 small writes, each flushed): p50, p99, max in ms. */
export async function fdatasyncLatency(dir) {
  const file = await open(join(dir, 'fdatasync-probe'), 'w');
  const times = [];
  try {
    for (let i = 0; i < 200; i++) {
      await file.write(Buffer.alloc(4096, i), 0, 4096, (i % 16) * 4096);
      const t = performance.now();
      await file.datasync();
      times.push(performance.now() - t);
    }
  } finally {
    await file.close();
    rmSync(join(dir, 'fdatasync-probe'), { force: true });
  }
  times.sort((a, b) => a - b);
  return { p50: times[100], p99: times[197], max: times[199] };
}

/** Runs the phase on a copy of the relay's data; resolves to each run's figures. */
export async function acceptRuns(ctx, { runs, rate, perRun, floor }) {
  const dir = freshDataDir('relay-accept');
  cpSync(ctx.relayDir, dir, { recursive: true });
  let relay = null;
  try {
    relay = await startRelay(ctx, { dir, cpus: SERVER_CPUS, phase: 'accept' });
    const warm = await ask(ctx.peers, { type: 'post', name: 'accept-warm', inbox: ctx.inbox, concurrency: 8 }, 'posted');
    if (warm.statuses['202'] === undefined) throw new Error(`the warm-up was not accepted: ${JSON.stringify(warm.statuses)}`);
    await sleep(500);
    const disk = await fdatasyncLatency(dir);
    const measure = async (from, to, at) => {
      const before = histogram(await scrapeMetrics(ctx.relayUrl), HISTOGRAM);
      const cpu0 = cpuSeconds(relay.child.pid);
      const threads0 = threadCpu(relay.child.pid);
      const client = await ask(ctx.peers, { type: 'paced', name: 'accept', inbox: ctx.inbox, rate: at, from, to, maxSockets: 64 }, 'paced');
      const cpu = cpuSeconds(relay.child.pid) - cpu0;
      const threads = threadDelta(threads0, threadCpu(relay.child.pid));
      const after = histogram(await scrapeMetrics(ctx.relayUrl), HISTOGRAM);
      const q = (x) => histogramQuantile(before, after, x);
      return {
        client,
        achieved: client.sent / client.seconds,
        relay: { p50: q(0.5), p99: q(0.99), count: q(0.5).count },
        cpuShare: cpu / client.seconds,
        cpuMsPer: (cpu * 1000) / client.sent,
        threads,
      };
    };
    const light = await measure(0, floor, FLOOR_RATE);
    await sleep(500);
    const out = [];
    for (let r = 0; r < runs; r++) {
      out.push(await measure(floor + r * perRun, floor + (r + 1) * perRun, rate));
      await sleep(1000);
    }
    return { runs: out, light, lightRate: FLOOR_RATE, disk };
  } finally {
    if (relay) await stopProc(relay.child);
    rmSync(dir, { recursive: true, force: true });
  }
}
