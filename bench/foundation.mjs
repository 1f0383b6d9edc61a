// Issue 2 benchmark: GET /api/v1/instance and verify_credentials at 1 and 10 concurrent clients,
// each beside a bare Node server answering the same bytes (measured in alternating rounds, see
// loadPair); and the server's idle resident memory.
import { fmt, freshDataDir, hearth, loadAverage, loadPair, rssMiB, startBare, startHearth, stop } from './lib/procs.mjs';

const DURATION = Number(process.env.BENCH_DURATION_MS ?? 3000);

export async function run() {
  const dataDir = freshDataDir('foundation');
  hearth(['account', 'create', '--data', dataDir, '--username', 'bench', '--password', 'bench-password-1', '--role', 'owner']);
  const token = hearth(['token', '--data', dataDir, '--username', 'bench', '--scopes', 'read']);
  const server = await startHearth(dataDir);
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssMiB(server.child.pid);
  console.log(`idle resident memory (2 s after start): ${fmt(idle)} MiB (target ≤ 70 MiB); load average ${loadAverage()}`);
  const endpoints = [
    { name: 'GET /api/v1/instance', path: '/api/v1/instance', headers: {} },
    { name: 'GET /api/v1/accounts/verify_credentials', path: '/api/v1/accounts/verify_credentials', headers: { authorization: `Bearer ${token}` } },
  ];
  const rows = [];
  for (const ep of endpoints) {
    const res = await fetch(server.url + ep.path, { headers: ep.headers });
    const body = await res.text();
    if (res.status !== 200) throw new Error(`${ep.name} answered ${res.status}: ${body}`);
    const bare = await startBare(body, res.headers.get('content-type'));
    for (const concurrency of [1, 10]) {
      const [h, b] = loadPair({ url: server.url + ep.path, headers: ep.headers }, { url: bare.url + '/' }, { concurrency, durationMs: DURATION });
      rows.push({
        endpoint: ep.name, clients: concurrency, rps: fmt(h.rps, 0), p50_ms: fmt(h.p50, 2), p99_ms: fmt(h.p99, 2),
        bare_rps: fmt(b.rps, 0), bare_p99_ms: fmt(b.p99, 2), ratio: `${fmt((h.rps / b.rps) * 100, 0)}%`, errors: h.errors, load: loadAverage(),
      });
    }
    await stop(bare.child);
  }
  console.table(rows);
  console.log('targets: both endpoints ≥ 60% of the bare server at 10 clients; idle RSS ≤ 70 MiB');
  await stop(server.child);
}
