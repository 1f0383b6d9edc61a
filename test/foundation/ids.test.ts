import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { newId } from '../../api/util/ids.js';

const low16 = (id: string) => Number(BigInt(id) & 0xffffn);

describe('local identifiers', () => {
  it('increase strictly within a thread, even past the sequence of one millisecond', () => {
    const at = Date.UTC(2026, 10, 26, 12, 0, 0);
    const ids = Array.from({ length: 40_000 }, () => BigInt(newId(at)));
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    // The main thread counts in the lower half of the sequence.
    expect(ids.every((id) => (id & 0xffffn) < 0x8000n)).toBe(true);
    // Past 32,768 in one millisecond, the next millisecond is borrowed.
    expect(ids[ids.length - 1]! >> 16n).toBe(BigInt(at) + 1n);
  });

  it('made in the same millisecond by the main thread and a worker thread (the delivery thread) never collide', async () => {
    const at = Date.UTC(2026, 10, 26, 12, 0, 1);
    const module = new URL('../../dist/api/util/ids.js', import.meta.url).href;
    const code = `import { parentPort } from 'node:worker_threads';
      const { newId } = await import(${JSON.stringify(module)});
      parentPort.postMessage(Array.from({ length: 1000 }, () => newId(${at})));`;
    const worker = new Worker(new URL(`data:text/javascript,${encodeURIComponent(code)}`));
    const theirs = await new Promise<string[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    const ours = Array.from({ length: 1000 }, () => newId(at));
    expect(theirs.every((id) => low16(id) >= 0x8000)).toBe(true);
    expect(ours.every((id) => low16(id) < 0x8000)).toBe(true);
    expect(new Set([...ours, ...theirs]).size).toBe(2000);
  });
});
