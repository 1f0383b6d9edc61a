// Load generator: `concurrency` loops, each sending requests back to back over its own keep-alive
// connection for `durationMs`, recording each latency. Runs in its own process (see bench/lib/
// load-worker.mjs) so that it does not share an event loop with the server being measured.
import http from 'node:http';

/**
 * Sends requests to `url` for `durationMs` with `concurrency` clients; returns figures. `method`
 * and `body` make it send e.g. POSTs; `{n}` in the body is replaced by a running request number.
 */
export async function runLoad({ url, headers = {}, concurrency, durationMs, warmupMs = 500, method = 'GET', body = null }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies = [];
  let errors = 0;
  let recording = false;
  let sent = 0;
  const one = () =>
    new Promise((resolve) => {
      const start = process.hrtime.bigint();
      const req = http.request(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers, agent },
        (res) => {
          res.on('data', () => {});
          res.on('end', () => {
            if (recording) {
              if (res.statusCode >= 200 && res.statusCode < 300) latencies.push(Number(process.hrtime.bigint() - start) / 1e6);
              else errors++;
            }
            resolve();
          });
        },
      );
      req.on('error', () => {
        if (recording) errors++;
        resolve();
      });
      if (body === null) req.end();
      else {
        const payload = Buffer.from(body.replaceAll('{n}', String(sent++)));
        req.setHeader('content-length', payload.length);
        req.end(payload);
      }
    });
  let stop = false;
  const loop = async () => {
    while (!stop) await one();
  };
  const loops = Array.from({ length: concurrency }, loop);
  await new Promise((r) => setTimeout(r, warmupMs));
  recording = true;
  const started = process.hrtime.bigint();
  await new Promise((r) => setTimeout(r, durationMs));
  recording = false;
  const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
  stop = true;
  await Promise.all(loops);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;
  return { requests: latencies.length, errors, rps: latencies.length / elapsedS, p50: pct(50), p99: pct(99) };
}
