// Fake fediverse peers for the federation benchmark, run in a child process of their own (pinned
// to another core than the server when `taskset` exists), driven over IPC:
// - `remote`: a loopback HTTP server serving N actor documents with RSA keys, and a load
//   generator POSTing pre-signed (draft-cavage + Digest) Create(Note) activities, each unique, to
//   the instance's shared inbox over keep-alive connections.
// - `sink`: one HTTP server bound to 0.0.0.0 (so it answers every 127.x.y.z address on Linux)
//   standing in for 500 instances: it records when each shared inbox was first reached, and checks
//   that every POST is signed, carries a Digest and a Content-Length and is not chunked.
// Times are process.hrtime (the machine's monotonic clock, the same in every process), as strings.
import { createHash, createPrivateKey, sign } from 'node:crypto';
import http from 'node:http';
import { startActorServer } from './actor-server.mjs';

const AS = 'https://www.w3.org/ns/activitystreams';
const PUBLIC = `${AS}#Public`;

/** Starts the fake remote server with `actors` actors; resolves to its origin. */
async function startRemote({ host, actors }) {
  const { origin, keys, server, fetches } = await startActorServer({ host, actors, label: 'Remote' });
  return { origin, keys, server, fetches };
}

/** Signs `count` unique Create(Note) activities for the inbox URL (draft-cavage, rsa-sha256). */
function presign({ origin, keys }, inboxUrl, count) {
  const target = new URL(inboxUrl);
  // Parsed once: signing with the PEM text would parse it again for every request.
  const privateKeys = keys.map((k) => createPrivateKey(k.privateKey));
  const date = new Date().toUTCString();
  const published = new Date().toISOString();
  const requests = [];
  for (let n = 0; n < count; n++) {
    const k = n % keys.length;
    const actor = `${origin}/users/u${k}`;
    const noteId = `${actor}/statuses/${n}`;
    const body = Buffer.from(
      JSON.stringify({
        '@context': AS,
        id: `${noteId}/activity`,
        type: 'Create',
        actor,
        published,
        to: [PUBLIC],
        cc: [`${actor}/followers`],
        object: {
          id: noteId,
          type: 'Note',
          attributedTo: actor,
          url: `${origin}/@u${k}/${n}`,
          published,
          to: [PUBLIC],
          cc: [`${actor}/followers`],
          content: `<p>Federation benchmark note number ${n} from u${k}, with a few words about the weather and the garden.</p>`,
        },
      }),
    );
    const digest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
    const type = 'application/activity+json';
    const signed = `(request-target): post ${target.pathname}\nhost: ${target.host}\ndate: ${date}\ndigest: ${digest}\ncontent-type: ${type}`;
    const signature = sign('sha256', Buffer.from(signed), privateKeys[k]).toString('base64');
    requests.push({
      body,
      headers: {
        host: target.host,
        date,
        digest,
        'content-type': type,
        'content-length': String(body.length),
        signature: `keyId="${actor}#main-key",algorithm="rsa-sha256",headers="(request-target) host date digest content-type",signature="${signature}"`,
      },
    });
  }
  return requests;
}

/**
 * POSTs requests [from, to) to the inbox with `concurrency` keep-alive connections, back to back,
 * or at `rate` requests per second when given; returns the count per status code and the hrtime
 * of the first send and of the last answer.
 */
async function post(inboxUrl, requests, { concurrency, from = 0, to = requests.length, rate = 0 }) {
  const target = new URL(inboxUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const statuses = {};
  let next = from;
  const first = process.hrtime.bigint();
  const one = (r) =>
    new Promise((resolve) => {
      const req = http.request({ host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: r.headers, agent }, (res) => {
        res.resume();
        res.on('end', () => {
          statuses[res.statusCode] = (statuses[res.statusCode] ?? 0) + 1;
          resolve();
        });
      });
      req.on('error', () => {
        statuses.error = (statuses.error ?? 0) + 1;
        resolve();
      });
      req.end(r.body);
    });
  const loop = async () => {
    while (next < to) {
      const n = next++;
      if (rate > 0) {
        // Request n is due (n - from) / rate seconds after the start.
        const due = first + BigInt(Math.round(((n - from) / rate) * 1e9));
        const wait = Number(due - process.hrtime.bigint()) / 1e6;
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      await one(requests[n]);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  const last = process.hrtime.bigint();
  agent.destroy();
  return { statuses, first: first.toString(), last: last.toString() };
}

/** Starts the sink on 0.0.0.0 (or the given port); resolves to its port and its record. */
async function startSink(port) {
  const record = { posts: 0, unsigned: 0, noDigest: 0, noLength: 0, chunked: 0, inboxes: new Map() };
  const server = http.createServer((req, res) => {
    if (req.method !== 'POST') {
      res.statusCode = 404;
      res.end();
      return;
    }
    const at = process.hrtime.bigint();
    record.posts++;
    if (!req.headers.signature && !req.headers['signature-input']) record.unsigned++;
    if (!req.headers.digest && !req.headers['content-digest']) record.noDigest++;
    if (req.headers['content-length'] === undefined) record.noLength++;
    if (req.headers['transfer-encoding']) record.chunked++;
    req.resume();
    req.on('end', () => {
      const inbox = `${req.headers.host}${req.url}`;
      const seen = record.inboxes.get(inbox);
      if (seen) seen.hits++;
      else record.inboxes.set(inbox, { first: at, hits: 1 });
      res.writeHead(202, { 'content-length': '0' });
      res.end();
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise((r) => server.listen(port, '0.0.0.0', r));
  return { port: server.address().port, record, server };
}

/** The worker: answers the parent's commands. */
export async function peerWorker() {
  // Ends with the benchmark that started it, whatever happened there.
  process.on('disconnect', () => process.exit(0));
  let remote = null;
  let requests = [];
  let sink = null;
  process.on('message', async (m) => {
    try {
      if (m.type === 'remote') {
        remote = await startRemote(m);
        process.send({ type: 'remote', origin: remote.origin });
      } else if (m.type === 'presign') {
        const started = Date.now();
        requests = presign(remote, m.inbox, m.count);
        process.send({ type: 'presigned', ms: Date.now() - started });
      } else if (m.type === 'post') {
        const result = await post(m.inbox, requests, m);
        process.send({ type: 'posted', ...result, actorFetches: remote.fetches() });
      } else if (m.type === 'sink') {
        sink = await startSink(m.port ?? 0);
        process.send({ type: 'sink', port: sink.port });
      } else if (m.type === 'sink-report') {
        const { record } = sink;
        const inboxes = [...record.inboxes.entries()].map(([inbox, v]) => ({ inbox, first: v.first.toString(), hits: v.hits }));
        process.send({ type: 'sink-report', posts: record.posts, unsigned: record.unsigned, noDigest: record.noDigest, noLength: record.noLength, chunked: record.chunked, inboxes });
      } else if (m.type === 'sink-reset') {
        sink.record.inboxes.clear();
        Object.assign(sink.record, { posts: 0, unsigned: 0, noDigest: 0, noLength: 0, chunked: 0 });
        process.send({ type: 'sink-reset' });
      }
    } catch (err) {
      process.send({ type: 'error', message: String(err?.stack ?? err) });
    }
  });
  process.send({ type: 'ready' });
}

if (process.env.HEARTH_FED_PEERS === '1') await peerWorker();
