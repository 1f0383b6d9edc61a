// Idle tunnels for the relay's memory benchmark (bench/relay.mjs): one child process holding many
// instances' tunnels at once, without running the instances. Each tenant enrols with its one-time
// code and a fresh Ed25519 tunnel key, then logs in with that key, through the instance's own
// protocol code (dist/api/relay/tunnel-client.js, connectTunnel, of the build BENCH_CLI names when given), and stays connected doing nothing: the
// WebSocket library answers the relay's pings, and frames that come (the backlog report) are
// dropped. Driven over IPC: `connect` {relayUrl, codes, concurrency} answers `connected` once
// every tunnel is in; `close` ends them all.
// Also `drain` {relayUrl, host, privateKeyPem, count}: logs in as an enrolled instance and
// acknowledges every replayed message at once, as applied, without applying anything (the relay's
// replay measured alone); answers `drained` with the hrtime of the login and of the last message.
import { createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { distDir } from './relay-procs.mjs';

const { connectTunnel } = await import(pathToFileURL(join(distDir, 'api', 'relay', 'tunnel-client.js')).href);
const { encodeFrame } = await import(pathToFileURL(join(distDir, 'relay', 'protocol.js')).href);

/**
 * Logs in as the instance and acknowledges `count` replayed messages: as they come, or at most
 * `rate` per second (an instance's pace) when given.
 */
function drain({ relayUrl, host, privateKeyPem, count, rate = 0 }) {
  return new Promise((resolve, reject) => {
    let ws = null;
    const seen = new Set();
    // Frames that came before connectTunnel's promise handed over the socket, or wait for the pace.
    const waiting = [];
    let first = null;
    let acked = 0;
    let loggedIn = 0n;
    const finish = () => {
      const last = process.hrtime.bigint();
      // A moment for the last acknowledgements to reach the relay before the tunnel closes.
      setTimeout(() => {
        ws.close(1000);
        resolve({ loggedIn: loggedIn.toString(), first: first.toString(), last: last.toString(), messages: seen.size });
      }, 500);
    };
    const ack = (seq) => {
      ws.send(encodeFrame({ t: 'ack', seq, applied: true, status: 202 }));
      acked++;
      if (acked === count) finish();
    };
    let pacer = null;
    if (rate > 0) {
      let started = null;
      pacer = setInterval(() => {
        if (!ws) return;
        started ??= process.hrtime.bigint();
        const allowed = Math.floor((Number(process.hrtime.bigint() - started) / 1e9) * rate);
        while (acked < allowed && waiting.length > 0) ack(waiting.shift());
        if (acked >= count) clearInterval(pacer);
      }, 5);
    }
    const onFrame = (frame) => {
      if (frame.t !== 'inbound' || seen.has(frame.seq)) return;
      first ??= process.hrtime.bigint();
      seen.add(frame.seq);
      if (ws && rate === 0) ack(frame.seq);
      else waiting.push(frame.seq);
    };
    connectTunnel(relayUrl, { kind: 'login', host, privateKey: createPrivateKey(privateKeyPem) }, false, onFrame)
      .then((c) => {
        loggedIn = process.hrtime.bigint();
        ws = c.ws;
        if (rate === 0) for (const seq of waiting.splice(0)) ack(seq);
      })
      .catch(reject);
  });
}

async function connectAll({ relayUrl, codes, concurrency }) {
  const sockets = [];
  let next = 0;
  let failed = 0;
  let lastError = null;
  const started = Date.now();
  const loop = async () => {
    while (next < codes.length) {
      const code = codes[next++];
      const pair = generateKeyPairSync('ed25519');
      const publicKey = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
      try {
        // Enrolled, as an instance is, on a connection of its own; then logged in on the one that stays.
        const enrolled = await connectTunnel(relayUrl, { kind: 'enrol', code, publicKey, privateKey: pair.privateKey }, false, () => {});
        enrolled.ws.close(1000, 'enrolled');
        const { ws } = await connectTunnel(relayUrl, { kind: 'login', host: enrolled.welcome.host, privateKey: pair.privateKey }, false, () => {});
        ws.on('error', () => {});
        sockets.push(ws);
      } catch (err) {
        failed++;
        lastError = String(err?.message ?? err);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, loop));
  return { sockets, failed, lastError, ms: Date.now() - started };
}

async function worker() {
  process.on('disconnect', () => process.exit(0));
  let sockets = [];
  process.on('message', async (m) => {
    try {
      if (m.type === 'connect') {
        const result = await connectAll(m);
        sockets = result.sockets;
        process.send({ type: 'connected', count: sockets.length, failed: result.failed, lastError: result.lastError, ms: result.ms });
      } else if (m.type === 'drain') {
        process.send({ type: 'drained', ...(await drain(m)) });
      } else if (m.type === 'status') {
        process.send({ type: 'status', open: sockets.filter((ws) => ws.readyState === ws.OPEN).length });
      } else if (m.type === 'close') {
        for (const ws of sockets) ws.terminate();
        sockets = [];
        process.send({ type: 'closed' });
      }
    } catch (err) {
      process.send({ type: 'error', message: String(err?.stack ?? err) });
    }
  });
  process.send({ type: 'ready' });
}

if (process.env.HEARTH_RELAY_TUNNELS === '1') await worker();
