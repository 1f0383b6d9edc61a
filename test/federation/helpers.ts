import { createServer } from 'node:net';
import { startInstance, type TestInstance } from '../helpers/instance.js';

/** A free TCP port on a loopback address (the origin must be known before the instance starts). */
export function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, host, () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/**
 * Starts an instance that federates at `http://<host>:<port>` (host a loopback address such as
 * 127.0.0.2), bound to that address, with loopback federation allowed (the test switch).
 */
export async function startFederated(host: string): Promise<TestInstance & { origin: string; domain: string }> {
  const port = await freePort(host);
  const origin = `http://${host}:${port}`;
  const inst = await startInstance({ bind: host, port, origin, federationAllowLoopback: true });
  return Object.assign(inst, { origin, domain: `${host}:${port}` });
}

/** Polls `check` until it returns a truthy value (deliveries are asynchronous; a loaded two-core machine can take seconds). */
export async function eventually<T>(check: () => Promise<T> | T, timeoutMs = 20_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`condition not met in ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
