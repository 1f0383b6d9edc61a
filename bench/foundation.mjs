// Issue 2 benchmark: GET /api/v1/instance and verify_credentials at 1 and 10 concurrent clients,
// each beside a bare Node server answering the same bytes (measured in alternating rounds, see
// loadPair); and the server's idle resident memory.
// Issue 14 (item 8): the cost of a token. /api/v1/instance without and with a token, and
// verify_credentials, measured in alternating rounds (medians), as ratios: a token should cost
// ≤ 10% (instance with a token ≥ 0.91 of without), and verify_credentials reach the rate of the
// instance within 15%. Twice: from this machine (the owner's apps, which no rate limit governs),
// and as clients of a proxy or of the relay are (X-Forwarded-For: every rate limit counted and its
// headers written; the limits raised so that none is reached).
import { fmt, freshDataDir, hearth, load, loadAverage, loadPair, rssMiB, startBare, startHearth, stop } from './lib/procs.mjs';

const DURATION = Number(process.env.BENCH_DURATION_MS ?? 3000);
// Rounds of the token comparison: each target measured this many times, in turn.
const TOKEN_ROUNDS = Number(process.env.BENCH_TOKEN_ROUNDS ?? 7);

const median = (values) => {
  const sorted = values.filter(Number.isFinite).sort((x, y) => x - y);
  return sorted.length === 0 ? NaN : sorted[Math.floor(sorted.length / 2)];
};

/**
 * Measures several targets in short alternating rounds (the order turning each round), so that
 * all see the same load from whatever else runs on the machine; the median of each figure.
 */
function loadRounds(targets, { concurrency, durationMs, rounds }) {
  const results = targets.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const order = targets.map((_, i) => (i + r) % targets.length);
    for (const i of order) {
      results[i].push(load({ ...targets[i], concurrency, durationMs: Math.max(400, Math.round(durationMs / rounds)), warmupMs: r === 0 ? 500 : 150 }));
    }
  }
  return results.map((rs) => ({
    rps: median(rs.map((x) => x.rps)),
    p50: median(rs.map((x) => x.p50)),
    p99: median(rs.map((x) => x.p99)),
    errors: rs.reduce((n, x) => n + x.errors, 0),
  }));
}

/** Checks that a request answers 200 (and, for a counted one, carries the rate-limit headers). */
async function check(url, headers, counted) {
  const res = await fetch(url, { headers });
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
      const [anon, withToken, vc] = loadRounds(
        targets.map((t) => ({ url: server.url + t.path, headers: t.headers })),
        { concurrency, durationMs: DURATION * 2, rounds: TOKEN_ROUNDS },
      );
      for (const [t, h] of [[targets[0], anon], [targets[1], withToken], [targets[2], vc]]) {
        tokenRows.push({ requests: variant.name, endpoint: t.label, clients: concurrency, rps: fmt(h.rps, 0), p50_ms: fmt(h.p50, 2), p99_ms: fmt(h.p99, 2), errors: h.errors });
      }
      ratios.push({
        requests: variant.name, clients: concurrency,
        'token cost (no token ÷ token)': `×${fmt(anon.rps / withToken.rps, 3)}`,
        'verify_credentials ÷ instance (no token)': fmt(vc.rps / anon.rps, 3),
        'verify_credentials ÷ instance (token)': fmt(vc.rps / withToken.rps, 3),
        load: loadAverage(),
      });
    }
  }
  console.table(tokenRows);
  console.table(ratios);
  console.log('targets (issue 14): a token costs ≤ ×1.10 and verify_credentials ≥ 0.85 of /api/v1/instance, rate limits counted or not');
  await stop(server.child);
}
