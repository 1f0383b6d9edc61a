import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { HostState, ServerHost } from '../../electron/host/server-host.js';

/**
 * The rig of the server host's tests: the host runs real children (Node's child_process.fork) of
 * the compiled entry, so the tests need `npx tsc -p tsconfig.build.json` (or `npm run build`) first.
 */

/** The compiled child entry the host forks. */
export const ENTRY = fileURLToPath(new URL('../../dist/electron/host/server-entry.js', import.meta.url));

/** Fails with a clear message when the entry is not built. */
export function requireBuiltEntry(): void {
  if (!existsSync(ENTRY)) throw new Error(`${ENTRY} is missing: build first (npx tsc -p tsconfig.build.json)`);
}

/** A fresh directory holding the data directory (`data`) and the log file beside it. */
export function tempPlace(): { root: string; dataDir: string; remove: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'hearth-host-'));
  return { root, dataDir: join(root, 'data'), remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** Every state a host reports from now on. */
export function recordStates(host: ServerHost): HostState[] {
  const seen: HostState[] = [];
  host.on((state) => seen.push(state));
  return seen;
}

/** Resolves with the first state (from now on) that matches. */
export function nextState<S extends HostState['state']>(host: ServerHost, state: S, timeoutMs = 30_000): Promise<Extract<HostState, { state: S }>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`no ${state} state within ${timeoutMs} ms (now ${host.state.state})`));
    }, timeoutMs);
    const off = host.on((s) => {
      if (s.state !== state) return;
      clearTimeout(timer);
      off();
      resolve(s as Extract<HostState, { state: S }>);
    });
  });
}

/** Whether a process is alive. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Makes the owner through the first-run API, from this computer, as the app's first screen does. */
export async function createOwner(url: string, username = 'kim'): Promise<void> {
  const res = await fetch(`${url}/api/hearth/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, email: `${username}@example.test`, password: 'long-enough-password-1' }),
  });
  if (res.status !== 200) throw new Error(`setup answered ${res.status}: ${await res.text()}`);
}

/** GET with a bearer token; the status and the JSON body. */
export async function getJson(url: string, token: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** The rig's polling helper (the federation tests'), for the host tests' imports. */
export { eventually } from '../federation/helpers.js';
