// Issue 3 benchmark: the home timeline (20 statuses from 200 followed accounts) at 1 and 10
// concurrent clients beside a bare Node server answering the same bytes, with 100,000 statuses;
// how its p99 moves from 10,000 to 1,000,000 statuses (both sizes served side by side, measured
// in alternating rounds); and POST /api/v1/statuses one at a time. The data is seeded straight
// into SQLite (bench/lib/seed-timeline.mjs); the servers are the real `hearth serve`.
// BENCH_TIMELINE_MAX=100000 skips the million (quicker runs).
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fmt, freshDataDir, hearth, load, loadAverage, loadPair, startBare, startHearth, stop } from './lib/procs.mjs';
import { addLocalFollowers, seedHomeTimeline } from './lib/seed-timeline.mjs';

const DURATION = Number(process.env.BENCH_DURATION_MS ?? 3000);
const MAX = Number(process.env.BENCH_TIMELINE_MAX ?? 1_000_000);
const HOME = '/api/v1/timelines/home';

function seed(dataDir, total) {
  const started = Date.now();
  seedHomeTimeline(join(dataDir, 'hearth.sqlite3'), { readerUsername: 'reader', total });
  console.log(`seeded ${total.toLocaleString('en')} statuses in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/** Fetches the page once (so its bytes can be served by the bare server) and checks it. */
async function firstPage(server, headers) {
  const res = await fetch(server.url + HOME, { headers });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`home timeline answered ${res.status}: ${body.slice(0, 200)}`);
  const statuses = JSON.parse(body);
  if (statuses.length !== 20) throw new Error(`home timeline gave ${statuses.length} statuses`);
  return { body, type: res.headers.get('content-type') };
}

/** Runs `fn` with Hearth servers on the given data directories, stopping them afterwards. */
async function withServers(dirs, fn) {
  const servers = [];
  try {
    for (const dir of dirs) servers.push(await startHearth(dir));
    return await fn(servers);
  } finally {
    for (const s of servers) await stop(s.child);
  }
}

export async function run() {
  const dataDir = freshDataDir('timeline');
  hearth(['account', 'create', '--data', dataDir, '--username', 'reader', '--password', 'reader-password-1', '--role', 'owner']);
  const token = hearth(['token', '--data', dataDir, '--username', 'reader', '--scopes', 'read write']);
  const headers = { authorization: `Bearer ${token}` };
  const rows = [];
  const row = (endpoint, clients, h, b) => ({
    endpoint, clients, rps: fmt(h.rps, 0), p50_ms: fmt(h.p50, 2), p99_ms: fmt(h.p99, 2),
    bare_rps: b ? fmt(b.rps, 0) : '', bare_p99_ms: b ? fmt(b.p99, 2) : '', ratio: b ? `${fmt((h.rps / b.rps) * 100, 0)}%` : '', errors: h.errors, load: loadAverage(),
  });

  // The small database is kept aside, to be served next to the large one at the end.
  seed(dataDir, 10_000);
  const smallDir = freshDataDir('timeline-10k');
  cpSync(dataDir, smallDir, { recursive: true });

  seed(dataDir, 100_000);
  await withServers([dataDir], async ([server]) => {
    const page = await firstPage(server, headers);
    console.log(`home page: ${page.body.length} bytes`);
    const bare = await startBare(page.body, page.type);
    try {
      for (const concurrency of [1, 10]) {
        const [h, b] = loadPair({ url: server.url + HOME, headers }, { url: bare.url + '/' }, { concurrency, durationMs: DURATION });
        rows.push(row('GET home (100k statuses)', concurrency, h, b));
      }
    } finally {
      await stop(bare.child);
    }
  });

  let growth = null;
  if (MAX > 100_000) {
    seed(dataDir, MAX);
    await withServers([smallDir, dataDir], async ([small, large]) => {
      await firstPage(small, headers);
      await firstPage(large, headers);
      const [s, l] = loadPair({ url: small.url + HOME, headers }, { url: large.url + HOME, headers }, { concurrency: 10, durationMs: DURATION });
      rows.push(row('GET home (10k statuses)', 10, s));
      rows.push(row(`GET home (${MAX / 1000}k statuses)`, 10, l));
      growth = l.p99 / s.p99;
    });
  }

  // Posting, one client after the other, on the largest database (synchronous=FULL as always):
  // a plain post, then one that mentions two local followers (fan-out to their home feeds and a
  // notification each).
  for (const name of ['friend1', 'friend2']) hearth(['account', 'create', '--data', dataDir, '--username', name, '--password', `${name}-password-1`]);
  addLocalFollowers(join(dataDir, 'hearth.sqlite3'), { readerUsername: 'reader', followers: ['friend1', 'friend2'] });
  await withServers([dataDir], async ([server]) => {
    const posts = [
      ['POST /api/v1/statuses', 'Benchmark post number {n}, with a #hashtag and a link https://example.org/page'],
      ['POST /api/v1/statuses (2 followers mentioned)', 'Hello @friend1 and @friend2, benchmark post number {n} #hashtag'],
    ];
    for (const [name, status] of posts) {
      const post = load({
        url: server.url + '/api/v1/statuses',
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ status }),
        concurrency: 1,
        durationMs: DURATION,
      });
      rows.push(row(name, 1, post));
    }
  });

  // A million statuses take about a GiB: not left behind.
  for (const dir of [dataDir, smallDir]) rmSync(dir, { recursive: true, force: true });

  console.table(rows);
  if (growth !== null) console.log(`p99 growth from 10,000 to ${MAX.toLocaleString('en')} statuses: ×${fmt(growth, 2)}`);
  console.log('targets: home ≥ 40% of the bare server at 10 clients with p99 ≤ 3 ms; p99 growth ≤ 1.5× from 10,000 to 1,000,000; POST p50 ≤ 5 ms');
}
