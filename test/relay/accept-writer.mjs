// Helper process of test/relay/store.test.ts (durability): opens the compiled relay store and
// accepts inbox deliveries for one tenant without end, several at a time, printing
// `<seq> <n>` for each once its accept resolved (n numbers the body). The test kills it with
// SIGKILL and checks that every printed seq survived.
//
//   node accept-writer.mjs sqlite <file> <tenantId> <inFlight>
//   node accept-writer.mjs postgres <url> <tenantId> <inFlight>
import { createHash } from 'node:crypto';

const [kind, target, tenantId, inFlightText] = process.argv.slice(2);
if (!kind || !target || !tenantId) {
  console.error('usage: accept-writer.mjs sqlite|postgres <file|url> <tenantId> [inFlight]');
  process.exit(2);
}
const inFlight = Number(inFlightText ?? '8');

const store =
  kind === 'sqlite'
    ? await (await import('../../dist/relay/store/sqlite.js')).openSqliteStore(target)
    : await (await import('../../dist/relay/store/postgres.js')).openPostgresStore(target);

/** The body of delivery `n`, as the test rebuilds it. */
function body(n) {
  return Buffer.from(JSON.stringify({ id: `https://peer.test/likes/${n}`, type: 'Like', object: 'https://kim.test/s/1' }));
}

let next = 0;
async function worker() {
  for (;;) {
    const n = next++;
    const b = body(n);
    const outcome = await store.accept(
      tenantId,
      {
        receivedAt: Date.now(),
        method: 'POST',
        path: '/inbox',
        headers: [['content-type', 'application/activity+json']],
        body: b,
        bodyHash: createHash('sha256').update(b).digest('hex'),
        priority: 1,
        activityType: 'Like',
      },
      { quotaBytes: 1e12, dedupeSince: 0 },
    );
    if (outcome.kind !== 'stored') throw new Error(`delivery ${n} was not stored: ${outcome.kind}`);
    process.stdout.write(`${outcome.seq} ${n}\n`);
  }
}

process.stdout.write('ready\n');
await Promise.all(Array.from({ length: inFlight }, worker));
