// Durability of the relay store: a process accepting deliveries is killed with SIGKILL, and every
// delivery it had been told was stored is there after a restart, once. The accepting process is
// test/relay/accept-writer.mjs, on the compiled store in dist/ (build first).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { addTenant, type SuiteContext } from './store-rig.js';

/** Deliveries the writer must have printed before it is killed. */
const PRINTED = 300;

/**
 * Registers the durability test of a backend (inside its describe). SQLite's open store is
 * closed for the writer (one process holds the file) and reopened after.
 */
export function durabilityTests(kind: 'sqlite' | 'postgres', ctx: SuiteContext): void {
  it('keeps every delivery acknowledged before a SIGKILL, each once', async () => {
    const script = fileURLToPath(new URL('./accept-writer.mjs', import.meta.url));
    const compiled = fileURLToPath(new URL(`../../dist/relay/store/${kind}.js`, import.meta.url));
    if (!existsSync(compiled)) throw new Error(`${compiled} is missing: build first (npx tsc -p tsconfig.build.json)`);
    const db = ctx.db();
    const kim = await addTenant(ctx.store(), 'kim.relay.test');
    if (kind === 'sqlite') await ctx.store().close();

    const child = spawn(process.execPath, [script, kind, db.target, kim, '16'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const printed = new Map<number, number>();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
    await new Promise<void>((resolve, reject) => {
      createInterface({ input: child.stdout }).on('line', (line) => {
        if (line === 'ready') return;
        const [seq, n] = line.split(' ').map(Number);
        printed.set(seq as number, n as number);
        if (printed.size >= PRINTED) resolve();
      });
      child.once('exit', (code, signal) => reject(new Error(`the writer ended early (${code ?? signal}): ${stderr}`)));
    });
    if (kind === 'sqlite') await expect(db.open()).rejects.toThrow(/another relay process/);
    child.kill('SIGKILL');
    // Lines already in the pipe are read to the end: they were printed, so they count too.
    await closed;
    expect(child.signalCode).toBe('SIGKILL');

    const store = kind === 'sqlite' ? await db.open() : ctx.store();
    ctx.setStore(store);
    const stored = await store.pending(kim, 0, 1_000_000, Number.MAX_SAFE_INTEGER);
    const bySeq = new Map(stored.map((m) => [m.seq, m]));
    for (const [seq, n] of printed) expect(bySeq.get(seq)?.body.toString(), `seq ${seq}`).toContain(`"https://peer.test/likes/${n}"`);
    // No gap, no body twice, counters that agree with the rows.
    expect(stored.map((m) => m.seq)).toEqual(stored.map((_, i) => i + 1));
    expect(new Set(stored.map((m) => m.bodyHash)).size).toBe(stored.length);
    expect((await store.backlog(kim)).count).toBe(stored.length);
    // A peer retrying a delivery it was answered 202 for finds it stored.
    const first = stored[0];
    if (!first) throw new Error('nothing stored');
    expect(await store.accept(kim, first, { quotaBytes: 1e12, dedupeSince: 0 })).toEqual({ kind: 'duplicate' });
    expect(await store.accept(kim, { ...first, body: Buffer.from('new'), bodyHash: 'new' }, { quotaBytes: 1e12, dedupeSince: 0 })).toMatchObject({
      seq: stored.length + 1,
    });
  }, 60_000);
}
