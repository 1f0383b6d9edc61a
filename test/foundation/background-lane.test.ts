import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BackgroundLane } from '../../api/util/background-lane.js';

/** Keeps the thread busy for `ms` (a step of background work). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

describe('background work takes turns with requests', () => {
  let server: Server;
  let url = '';
  const log: string[] = [];

  beforeAll(async () => {
    server = createServer((_req, res) => {
      log.push('request');
      res.end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });

  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('grants one turn per turn of the event loop, in order, so a request is answered between steps', async () => {
    const lane = new BackgroundLane();
    log.length = 0;
    const steps = Array.from({ length: 30 }, (_, i) =>
      lane.turn().then(() => {
        log.push(`step ${i}`);
        busy(2);
      }),
    );
    expect(lane.queued).toBe(30);
    // The request is sent while every step waits for its turn: it is answered long before the
    // last of them (all thirty in one go would come first: 60 ms before the server saw it).
    const answered = fetch(url).then((res) => res.text());
    await Promise.all(steps);
    expect(await answered).toBe('ok');
    const at = log.indexOf('request');
    expect(at).toBeGreaterThan(0);
    expect(at).toBeLessThan(20);
    // The steps ran in the order they asked.
    expect(log.filter((l) => l !== 'request')).toEqual(Array.from({ length: 30 }, (_, i) => `step ${i}`));
    expect(lane.queued).toBe(0);
  });
});
