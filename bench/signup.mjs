// Issue 14 (item 6): sign-up without stopping the event loop. A sign-up makes an RSA key pair and
// an scrypt hash of the password; made synchronously they stopped the loop for 50–100 ms each.
// Measured with perf_hooks.monitorEventLoopDelay in this process, which runs the instance:
// - before: the synchronous primitives the sign-up used to call (generateKeyPairSync and
//   scryptSync with the same parameters), one sign-up's worth at a time;
// - after: POST /api/v1/accounts through the instance, one after the other, then several at once.
// Figures: the longest stall and the 99th percentile of the loop's delay, and sign-ups per second.
// What is left on the loop is the sign-up's transaction (its commit waits for the disk, as every
// acknowledged write does) and the HTTP work. Target: the longest stall one at a time ≤ 1/3 of the
// synchronous work's. BENCH_SIGNUPS sets the number of sign-ups per phase (default 12).
import { generateKeyPairSync, randomBytes, scryptSync } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fmt, freshDataDir, loadAverage, root } from './lib/procs.mjs';

const SIGNUPS = Number(process.env.BENCH_SIGNUPS ?? 12);

/** Runs `work` with the loop's delay recorded at 1 ms resolution; the figures in milliseconds. */
async function measured(work) {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  // A turn of the loop first, so that the histogram starts from a quiet loop.
  await new Promise((resolve) => setTimeout(resolve, 50));
  histogram.enable();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  // Let the last stall be seen by the sampling timer.
  await new Promise((resolve) => setTimeout(resolve, 20));
  histogram.disable();
  return { max: histogram.max / 1e6, p99: histogram.percentile(99) / 1e6, seconds };
}

/** What a sign-up used to do on the event loop: the key pair and the password hash, synchronously. */
function synchronousSignupWork(password) {
  generateKeyPairSync('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } });
  scryptSync(password, randomBytes(16), 32, { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
}

async function json(res) {
  const text = await res.text();
  if (!res.ok) throw new Error(`${res.url} answered ${res.status}: ${text}`);
  return JSON.parse(text);
}

/** An application and its client-credentials token, as a sign-up needs. */
async function appToken(url) {
  const app = await json(await fetch(`${url}/api/v1/apps`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'signup bench', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write' }),
  }));
  const token = await json(await fetch(`${url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: app.client_id, client_secret: app.client_secret, scope: 'read write' }),
  }));
  return token.access_token;
}

let counter = 0;

async function signUp(url, token) {
  const username = `bench${++counter}`;
  await json(await fetch(`${url}/api/v1/accounts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    body: JSON.stringify({ username, email: `${username}@example.test`, password: 'bench-password-1', agreement: true, locale: 'en' }),
  }));
}

export async function run() {
  const { createApp } = await import(join(root, 'dist', 'api', 'app.js'));
  const { resolveConfig } = await import(join(root, 'dist', 'api', 'config.js'));
  const dataDir = freshDataDir('signup');
  const app = await createApp(resolveConfig({ port: 0, bind: '127.0.0.1', registrations: 'open', dataDir }, {}));
  try {
    const url = await app.listen();
    const token = await appToken(url);
    // One sign-up first: module loading and the first queries are not what is measured.
    await signUp(url, token);

    const before = await measured(async () => {
      for (let i = 0; i < SIGNUPS; i++) {
        synchronousSignupWork('bench-password-1');
        // A turn of the loop between them, as between two requests.
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
    const sequential = await measured(async () => {
      for (let i = 0; i < SIGNUPS; i++) await signUp(url, token);
    });
    const concurrent = await measured(async () => {
      await Promise.all(Array.from({ length: SIGNUPS }, () => signUp(url, token)));
    });

    const row = (phase, m) => ({
      phase,
      signups: SIGNUPS,
      longest_stall_ms: fmt(m.max, 1),
      p99_delay_ms: fmt(m.p99, 1),
      signups_per_s: fmt(SIGNUPS / m.seconds, 1),
      load: loadAverage(),
    });
    console.table([
      row('before: key pair + hash on the loop', before),
      row('after: POST /api/v1/accounts, one at a time', sequential),
      row(`after: POST /api/v1/accounts, ${SIGNUPS} at once`, concurrent),
    ]);
    console.log(
      `longest stall, one sign-up at a time: ${fmt(sequential.max, 1)} ms against ${fmt(before.max, 1)} ms for the synchronous work ` +
        `(${fmt((sequential.max / before.max) * 100, 0)}%, target ≤ 33%); ${SIGNUPS} at once: ${fmt(concurrent.max, 1)} ms`,
    );
  } finally {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
