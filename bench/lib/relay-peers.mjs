// Fake fediverse peers for the relay benchmark (bench/relay.mjs), run in a child process of their
// own (pinned to another core than the process measured, when `taskset` exists), driven over IPC:
// - `remote`: a loopback HTTP server serving N actor documents with RSA keys (the senders);
// - `sign`: builds a named list of activities (bench/lib/relay-plan.mjs) and signs each as a
//   request to an inbox (draft-cavage rsa-sha256 over (request-target), host, date, digest and
//   content-type, with a SHA-256 Digest), ahead of time, so that sending costs no signing;
// - `post`: sends a range of a list flat out over keep-alive connections, each retried until it
//   is answered 202 (as a peer does);
// - `paced`: sends a range at a steady rate, open loop (each request leaves when it is due,
//   whatever the answers before it), and records each request's time to its answer.
// Times are process.hrtime (the machine's monotonic clock, the same in every process), as strings.
import { createHash, createPrivateKey, sign } from 'node:crypto';
import http from 'node:http';
import { startActorServer } from './actor-server.mjs';
import { backlogPlan, notesRoundRobin, onePerSender } from './relay-plan.mjs';

/** Starts the senders' server with `actors` actors (keys made on libuv's pool); resolves to its origin. */
async function startRemote({ host, actors }) {
  const { origin, keys, fetches, keysMs } = await startActorServer({ host, actors, label: 'Sender' });
  return { origin, privateKeys: keys.map((k) => createPrivateKey(k.privateKey)), fetches, keysMs };
}

/** Signs one activity from sender k as a POST to `inboxUrl`. */
function signed(remote, inboxUrl, k, activity) {
  const target = new URL(inboxUrl);
  const body = Buffer.from(JSON.stringify(activity));
  const date = new Date().toUTCString();
  const digest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
  const type = 'application/activity+json';
  const text = `(request-target): post ${target.pathname}\nhost: ${target.host}\ndate: ${date}\ndigest: ${digest}\ncontent-type: ${type}`;
  const signature = sign('sha256', Buffer.from(text), remote.privateKeys[k]).toString('base64');
  return {
    body,
    headers: {
      host: target.host,
      date,
      digest,
      'content-type': type,
      'content-length': String(body.length),
      signature: `keyId="${activity.actor}#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest content-type",signature="${signature}"`,
    },
  };
}

/** Builds the list a `sign` command names. */
function build(remote, m) {
  const origin = remote.origin;
  if (m.kind === 'backlog') return backlogPlan({ origin, senders: m.senders, known: m.known, perSender: m.perSender, targets: m.targets, reader: m.reader, startMs: Date.now() });
  if (m.kind === 'warm') return { activities: onePerSender({ origin, from: m.from, to: m.to, tag: m.tag }) };
  if (m.kind === 'notes') return { activities: notesRoundRobin({ origin, senders: m.senders, count: m.count, tag: m.tag }) };
  throw new Error(`unknown list kind ${m.kind}`);
}

/** One POST; resolves to its status code (0 for a transport error) and its time in ms. */
function postOne(target, agent, r) {
  return new Promise((resolve) => {
    const start = process.hrtime.bigint();
    const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: r.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
    });
    req.on('error', () => resolve({ status: 0, ms: Number(process.hrtime.bigint() - start) / 1e6 }));
    req.end(r.body);
  });
}

/**
 * Sends requests [from, to) flat out with `concurrency` keep-alive connections; a request not
 * answered 202 is sent again (after 100 ms) until it is, up to 50 times.
 */
async function postAll(inboxUrl, requests, { concurrency, from = 0, to = requests.length }) {
  const target = new URL(inboxUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses = {};
  let next = from;
  const first = process.hrtime.bigint();
  const loop = async () => {
    while (next < to) {
      const r = requests[next++];
      for (let attempt = 0; ; attempt++) {
        const { status } = await postOne(target, agent, r);
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status === 202) break;
        if (attempt >= 50) throw new Error(`a request was never accepted (last status ${status})`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const last = process.hrtime.bigint();
  agent.destroy();
  return { statuses, first: first.toString(), last: last.toString() };
}

/**
 * Sends requests [from, to) at `rate` per second, open loop: request n leaves (n - from) / rate
 * seconds after the start, whether or not earlier ones were answered (over at most `maxSockets`
 * keep-alive connections; beyond that, requests wait in the client). Each request's time runs
 * from when it was sent to its answer; `dueP99` counts from when it was due instead (the client's
 * own lag and waits included).
 */
async function paced(inboxUrl, requests, { rate, from, to, maxSockets = 64 }) {
  const target = new URL(inboxUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const statuses = {};
  const latencies = [];
  const fromDue = [];
  const pending = [];
  const start = process.hrtime.bigint();
  let next = from;
  await new Promise((resolve) => {
    const tick = () => {
      const elapsedS = Number(process.hrtime.bigint() - start) / 1e9;
      const due = Math.min(to, from + Math.floor(elapsedS * rate) + 1);
      while (next < due) {
        const n = next++;
        const dueAt = start + BigInt(Math.round(((n - from) / rate) * 1e9));
        pending.push(
          postOne(target, agent, requests[n]).then(({ status, ms }) => {
            statuses[status] = (statuses[status] ?? 0) + 1;
            if (status !== 202) return;
            latencies.push(ms);
            fromDue.push(Number(process.hrtime.bigint() - dueAt) / 1e6);
          }),
        );
      }
      if (next >= to) resolve();
      else setTimeout(tick, 1);
    };
    tick();
  });
  await Promise.all(pending);
  const last = process.hrtime.bigint();
  agent.destroy();
  latencies.sort((a, b) => a - b);
  fromDue.sort((a, b) => a - b);
  const pct = (list, p) => list[Math.min(list.length - 1, Math.floor((p / 100) * list.length))] ?? NaN;
  return {
    statuses,
    sent: to - from,
    seconds: Number(last - start) / 1e9,
    p50: pct(latencies, 50),
    p99: pct(latencies, 99),
    max: latencies.at(-1) ?? NaN,
    dueP99: pct(fromDue, 99),
    first: start.toString(),
    last: last.toString(),
  };
}

/** The worker: answers the parent's commands. */
async function worker() {
  // Ends with the benchmark that started it, whatever happened there.
  process.on('disconnect', () => process.exit(0));
  let remote = null;
  const lists = new Map();
  process.on('message', async (m) => {
    try {
      if (m.type === 'remote') {
        remote = await startRemote(m);
        process.send({ type: 'remote', origin: remote.origin, keysMs: remote.keysMs });
      } else if (m.type === 'sign') {
        const started = Date.now();
        const plan = build(remote, m);
        lists.set(m.name, plan.activities.map(({ k, activity }) => signed(remote, m.inbox, k, activity)));
        process.send({ type: 'signed', name: m.name, count: plan.activities.length, ms: Date.now() - started, firstContact: plan.firstContact ?? [], expected: plan.expected ?? null });
      } else if (m.type === 'post') {
        const list = lists.get(m.name);
        const result = await postAll(m.inbox, list, { concurrency: m.concurrency, from: m.from ?? 0, to: m.to ?? list.length });
        process.send({ type: 'posted', ...result, actorFetches: remote.fetches() });
      } else if (m.type === 'paced') {
        const result = await paced(m.inbox, lists.get(m.name), m);
        process.send({ type: 'paced', ...result });
      } else if (m.type === 'fetches') {
        process.send({ type: 'fetches', count: remote.fetches() });
      }
    } catch (err) {
      process.send({ type: 'error', message: String(err?.stack ?? err) });
    }
  });
  process.send({ type: 'ready' });
}

if (process.env.HEARTH_RELAY_PEERS === '1') await worker();
