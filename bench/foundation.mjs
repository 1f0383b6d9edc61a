// Issue 2 benchmark: GET /api/v1/instance and verify_credentials at 1 and 10 concurrent clients,
// each beside a bare Node server answering the same bytes (measured in alternating rounds, see
// loadPair); and the server's idle resident memory.
// Issue 14 (item 8): the cost of a token. /api/v1/instance without and with a token, and
// verify_credentials, as ratios: a token should cost ≤ 10% (instance with a token ≥ 0.91 of the
// rate without), and verify_credentials reach the rate of the instance within 15%. Twice: from this
// machine (the owner's apps, which no rate limit governs), and as clients of a proxy or of the relay
// are (X-Forwarded-For: every rate limit counted and its headers written; the limits raised so that
// none is reached). The three are loaded in turn in short slices (bench/lib/alternate-worker.mjs),
// each slice's rate and the server's CPU time per request measured, and the medians of the figures
// and of each cycle's ratios printed: slices that follow each other closely see the same load from
// whatever else runs on the machine, which moves a run's rate much more than these ratios.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fmt, freshDataDir, hearth, loadAverage, loadPair, root, rssMiB, startBare, startHearth, stop } from './lib/procs.mjs';

const DURATION = Number(process.env.BENCH_DURATION_MS ?? 3000);
// Cycles of the token comparison: each target loaded this many times, in turn, for SLICE_MS each.
const TOKEN_CYCLES = Number(process.env.BENCH_TOKEN_CYCLES ?? 40);
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 300);

/**
 * Loads the targets of a server in turn (see bench/lib/alternate-worker.mjs); per target, the
 * median rate and server CPU µs per request, and the medians of its per-cycle ratios to the others.
 */
function alternate(targets, { concurrency, pid }) {
  const options = { targets, concurrency, sliceMs: SLICE_MS, cycles: TOKEN_CYCLES, warmupMs: 1500, pid };
  const out = execFileSync(process.execPath, [join(root, 'bench', 'lib', 'alternate-worker.mjs'), JSON.stringify(options)], { encoding: 'utf8' });
  return JSON.parse(out);
}

/** Checks that a request answers 200 (and, for a counted one, carries the rate-limit headers). */
async function check(url, headers, counted) {
  // A connection of its own: a kept-alive one may be closed by the server as it is reused.
  const res = await fetch(url, { headers: { ...headers, connection: 'close' } });
  const body = await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${body}`);
  if (counted !== res.headers.has('x-ratelimit-limit')) throw new Error(`${url}: rate-limit headers ${counted ? 'missing' : 'unexpected'}`);
  return { body, type: res.headers.get('content-type') };
}

export async function run() {
  const dataDir = freshDataDir('foundation');
  hearth(['account', 'create', '--data', dataDir, '--username', 'bench', '--password', 'bench-password-1', '--role', 'owner']);
  const token = hearth(['token', '--data', dataDir, '--username', 'bench', '--scopes', 'read']);
  // Limits raised a million times: counted and reported on every proxied request, never reached.
  const server = await startHearth(dataDir, ['--rate-limit-scale', '1000000']);
  await new Promise((r) => setTimeout(r, 2000));
  const idle = rssMiB(server.child.pid);
  console.log(`idle resident memory (2 s after start): ${fmt(idle)} MiB (target ≤ 70 MiB); load average ${loadAverage()}`);
  const auth = { authorization: `Bearer ${token}` };
  const endpoints = [
    { name: 'GET /api/v1/instance', path: '/api/v1/instance', headers: {} },
    { name: 'GET /api/v1/accounts/verify_credentials', path: '/api/v1/accounts/verify_credentials', headers: auth },
  ];
  const rows = [];
  for (const ep of endpoints) {
    const { body, type } = await check(server.url + ep.path, ep.headers, false);
    const bare = await startBare(body, type);
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

  // The cost of a token.
  const proxied = { 'x-forwarded-for': '203.0.113.9' };
  const variants = [
    { name: 'this machine', extra: {}, counted: false },
    { name: 'proxied (rate limits counted)', extra: proxied, counted: true },
  ];
  const tokenRows = [];
  const ratios = [];
  for (const variant of variants) {
    const targets = [
      { label: 'instance, no token', path: '/api/v1/instance', headers: { ...variant.extra } },
      { label: 'instance, token', path: '/api/v1/instance', headers: { ...variant.extra, ...auth } },
      { label: 'verify_credentials', path: '/api/v1/accounts/verify_credentials', headers: { ...variant.extra, ...auth } },
    ];
    for (const t of targets) await check(server.url + t.path, t.headers, variant.counted);
    for (const concurrency of [1, 10]) {
      const { targets: [anon, withToken, vc], errors } = alternate(
        targets.map((t) => ({ url: server.url + t.path, headers: t.headers })),
        { concurrency, pid: server.child.pid },
      );
      for (const [t, h] of [[targets[0], anon], [targets[1], withToken], [targets[2], vc]]) {
        tokenRows.push({ requests: variant.name, endpoint: t.label, clients: concurrency, rps: fmt(h.rps, 0), 'server CPU µs/request': fmt(h.cpuUs, 1) });
      }
      ratios.push({
        requests: variant.name, clients: concurrency,
        'token cost: rate (no token ÷ token)': `×${fmt(anon.rate[1], 3)}`,
        'CPU (token ÷ no token)': `×${fmt(withToken.cpu[0], 3)}`,
        'verify_credentials ÷ instance (no token): rate': fmt(vc.rate[0], 3),
        'CPU⁻¹': fmt(anon.cpu[2], 3),
        'verify_credentials ÷ instance (token): rate': fmt(vc.rate[1], 3),
        'CPU⁻¹ ': fmt(withToken.cpu[2], 3),
        errors,
        load: loadAverage(),
      });
    }
  }
  console.table(tokenRows);
  console.table(ratios);
  console.log('targets (issue 14): a token costs ≤ ×1.10 and verify_credentials ≥ 0.85 of /api/v1/instance (without a token), rate limits counted or not;');
  console.log('CPU: the server’s CPU time per request, which the load of other processes moves less than the rate (CPU⁻¹: instance µs ÷ verify_credentials µs)');
  await stop(server.child);
}
