import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import type { DesktopBridge } from '../../electron/contract/ipc.js';
import { createDesktopBridge, type WireListener } from '../../electron/preload/bridge.js';

/*
 * The preload: the bridge it exposes (only the contract's channels, listeners unwrapped), and the
 * bundle `npm run build` makes of it (dist/electron/preload.cjs), which a sandboxed preload can
 * load only if it requires nothing but 'electron'.
 */

const BUNDLE = fileURLToPath(new URL('../../dist/electron/preload.cjs', import.meta.url));

/** A stand-in for ipcRenderer: records invokes, keeps listeners, answers what the test says. */
function fakeIpc(answer: (channel: string, payload: unknown) => Promise<unknown>) {
  const invoked: [string, unknown][] = [];
  const listeners = new Map<string, Set<WireListener>>();
  return {
    invoked,
    listeners,
    send(channel: string, payload: unknown) {
      for (const listener of listeners.get(channel) ?? []) listener({ sender: 'the whole ipcRenderer' }, payload);
    },
    ipc: {
      invoke: (channel: string, payload: unknown) => {
        invoked.push([channel, payload]);
        return answer(channel, payload);
      },
      on: (channel: string, listener: WireListener) => {
        const set = listeners.get(channel) ?? new Set();
        set.add(listener);
        listeners.set(channel, set);
      },
      removeListener: (channel: string, listener: WireListener) => void listeners.get(channel)?.delete(listener),
    },
  };
}

describe('preload: the bridge', () => {
  it('invokes the contract’s channels on their prefixed names, and nothing else', async () => {
    const fake = fakeIpc(async (channel) => ({ answered: channel }));
    const bridge = createDesktopBridge(fake.ipc);
    expect(await bridge.invoke('settings:get', null)).toEqual({ answered: 'hearth:settings:get' });
    await bridge.invoke('settings:set', { closeToTray: true });
    expect(fake.invoked).toEqual([
      ['hearth:settings:get', null],
      ['hearth:settings:set', { closeToTray: true }],
    ]);
    const loose = bridge as unknown as { invoke(channel: string, payload: unknown): Promise<unknown> };
    for (const channel of ['electron-store-get-data', 'hearth:settings:get', 'settings', '__proto__', 'toString']) {
      await expect(loose.invoke(channel, null), channel).rejects.toThrow(/no desktop call/);
    }
    expect(fake.invoked).toHaveLength(2);
    expect(Object.isFrozen(bridge)).toBe(true);
    expect(Object.keys(bridge).sort()).toEqual(['invoke', 'on']);
  });

  it('gives listeners the payload alone (never Electron’s event), and unsubscribes', () => {
    const fake = fakeIpc(async () => null);
    const bridge = createDesktopBridge(fake.ipc);
    const got: unknown[][] = [];
    const off = bridge.on('progress', (...args: unknown[]) => void got.push(args));
    fake.send('hearth:progress', { operation: 'backup', fraction: 0.5, stage: 'files' });
    expect(got).toEqual([[{ operation: 'backup', fraction: 0.5, stage: 'files' }]]);
    off();
    off();
    fake.send('hearth:progress', { operation: 'backup', fraction: 1, stage: 'done' });
    expect(got).toHaveLength(1);
    expect(fake.listeners.get('hearth:progress')?.size).toBe(0);
    const loose = bridge as unknown as { on(channel: string, listener: unknown): unknown };
    expect(() => loose.on('electron-store-get-data', () => undefined)).toThrow(/no desktop event/);
    expect(() => loose.on('progress', 'not a function')).toThrow(/listener function/);
  });

  it('passes the reason of a refused call on without Electron’s wrapping', async () => {
    const fake = fakeIpc(async () => {
      throw new Error("Error invoking remote method 'hearth:settings:get': IpcSenderError: Refused settings:get: the call came from a subframe.");
    });
    await expect(createDesktopBridge(fake.ipc).invoke('settings:get', null)).rejects.toThrow(/^Refused settings:get: the call came from a subframe\.$/);
  });
});

describe('preload: the bundle', () => {
  it('exists after the build and requires nothing but electron', () => {
    expect(existsSync(BUNDLE), 'dist/electron/preload.cjs is missing: run npm run build').toBe(true);
    const code = readFileSync(BUNDLE, 'utf8');
    const required = [...code.matchAll(/\brequire\s*\(\s*(['"`])([^'"`]*)\1\s*\)/g)].map((m) => m[2]);
    expect(required).toEqual(['electron']);
    // No other way of loading code: no require with a computed name, no import().
    expect(code.match(/\brequire\s*\(/g)).toHaveLength(1);
    expect(code).not.toMatch(/\bimport\s*\(/);
  });

  it('run as a sandboxed preload runs it, exposes exactly hearthDesktop, over ipcRenderer', async () => {
    const code = readFileSync(BUNDLE, 'utf8');
    const exposed = new Map<string, unknown>();
    const fake = fakeIpc(async (channel) => channel);
    const electron = { contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void exposed.set(key, api) }, ipcRenderer: fake.ipc };
    const requireInSandbox = (name: string): unknown => {
      if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
      return electron;
    };
    const module = { exports: {} };
    runInNewContext(code, { require: requireInSandbox, module, exports: module.exports });
    expect([...exposed.keys()]).toEqual(['hearthDesktop']);
    const bridge = exposed.get('hearthDesktop') as DesktopBridge;
    expect(await bridge.invoke('info:get', null)).toBe('hearth:info:get');
  });
});
