import type { IpcMain } from 'electron';
import { afterEach, describe, expect, it } from 'vitest';
import { INVOKE_CHANNELS, wireName, type InvokeChannel } from '../../electron/contract/ipc.js';
import { IpcPayloadError, IpcSenderError } from '../../electron/ipc/handlers.js';
import { registerIpcHandlers, type InvokeEventLike, type IpcMainLike } from '../../electron/ipc/register.js';
import { senderFromFrame, senderRefusal } from '../../electron/ipc/sender.js';
import { APP, APP_ORIGIN, createRig, STRANGERS, type Rig } from './ipc-rig.js';

// Electron's own ipcMain fits what registration takes (checked by the type-checker).
const fits: (ipc: IpcMain) => IpcMainLike = (ipc) => ipc;
void fits;

/** A valid payload for each channel (what the app sends). */
const VALID: Record<InvokeChannel, unknown> = {
  'settings:get': null,
  'settings:set': { startAtLogin: true },
  'info:get': null,
  'data-dir:choose': null,
  'certificate:trust': null,
  'backup:create': null,
  'backup:restore': null,
  'log:open': null,
};

let rig: Rig;
afterEach(() => rig?.close());

describe('IPC handlers: who may call', () => {
  it('a handler per channel of the contract, and nothing else', () => {
    rig = createRig();
    expect(Object.keys(rig.handlers).sort()).toEqual([...INVOKE_CHANNELS].sort());
  });

  for (const channel of INVOKE_CHANNELS) {
    it(`${channel}: refuses every sender but the app's main frame, and changes nothing`, async () => {
      rig = createRig();
      rig.answers.folder = rig.dir;
      rig.answers.backupTarget = `${rig.dir}/b.tar`;
      rig.answers.backupSource = `${rig.dir}/b.tar`;
      const before = rig.file();
      for (const [what, sender] of STRANGERS) {
        await expect(rig.handlers[channel](sender, VALID[channel]), what).rejects.toBeInstanceOf(IpcSenderError);
      }
      // While no server runs there is no app to answer.
      rig.answers.appOrigin = null;
      await expect(rig.handlers[channel](APP, VALID[channel])).rejects.toThrow(/not running/);
      expect(rig.file()).toBe(before);
      expect(rig.calls).toEqual([]);
      expect(rig.commands).toEqual([]);
      expect(rig.events).toEqual([]);
    });
  }

  it('says why a sender was refused', () => {
    expect(senderRefusal({ frameUrl: 'https://evil.example/', isMainFrame: true }, APP_ORIGIN)).toMatch(/not the app \(https:\/\/evil\.example\)/);
    expect(senderRefusal({ frameUrl: 'file:///etc/passwd', isMainFrame: true }, APP_ORIGIN)).toMatch(/no web origin \(file:\/\/\/etc\/passwd\)/);
    expect(senderRefusal({ frameUrl: `${APP_ORIGIN}/x`, isMainFrame: false }, APP_ORIGIN)).toMatch(/subframe/);
    expect(senderRefusal(APP, APP_ORIGIN)).toBeNull();
    // An origin given with a trailing slash or path is the same origin.
    expect(senderRefusal(APP, `${APP_ORIGIN}/`)).toBeNull();
  });

  it('reads the sender from Electron’s senderFrame (the main frame has no parent)', () => {
    expect(senderFromFrame({ url: `${APP_ORIGIN}/`, parent: null })).toEqual({ frameUrl: `${APP_ORIGIN}/`, isMainFrame: true });
    expect(senderFromFrame({ url: `${APP_ORIGIN}/`, parent: {} })).toEqual({ frameUrl: `${APP_ORIGIN}/`, isMainFrame: false });
    expect(senderFromFrame(null)).toEqual({ frameUrl: '', isMainFrame: false });
  });
});

describe('IPC handlers: settings', () => {
  it('settings:get answers the settings', async () => {
    rig = createRig('darwin');
    expect(await rig.handlers['settings:get'](APP, null)).toEqual(rig.settings.get());
    expect(await rig.handlers['settings:get'](APP, undefined)).toMatchObject({ closeToTray: true });
    await expect(rig.handlers['settings:get'](APP, { port: 1 })).rejects.toBeInstanceOf(IpcPayloadError);
  });

  it('settings:set saves a change, turns the login item on and off, and tells the app', async () => {
    rig = createRig();
    const on = await rig.handlers['settings:set'](APP, { startAtLogin: true, notifications: { direct: false } });
    expect(on).toEqual({ ok: true, value: expect.objectContaining({ startAtLogin: true, notifications: { mention: true, direct: false, follow: true, follow_request: true } }) });
    expect(rig.settings.get().startAtLogin).toBe(true);
    expect(rig.calls).toEqual(['setLoginItem true', 'settingsChanged true']);
    // A change that does not touch the login item leaves it alone.
    await rig.handlers['settings:set'](APP, { port: 7480 });
    expect(rig.calls).toEqual(['setLoginItem true', 'settingsChanged true', 'settingsChanged true']);
    await rig.handlers['settings:set'](APP, { startAtLogin: false });
    expect(rig.calls.at(-2)).toBe('setLoginItem false');
  });

  it('settings:set refuses bad payloads with a sentence, and changes nothing', async () => {
    rig = createRig();
    const before = rig.file();
    for (const payload of [null, undefined, 'startAtLogin', { port: 22 }, { dataDir: '/x' }, { startAtLogin: true, extra: 1 }, { notifications: false }]) {
      const result = await rig.handlers['settings:set'](APP, payload);
      expect(result.ok, JSON.stringify(payload)).toBe(false);
      if (!result.ok) expect(result.error).toMatch(/^[A-Z“].*\.$/);
    }
    expect(rig.file()).toBe(before);
    expect(rig.calls).toEqual([]);
  });

  it('settings:set puts the setting back when the system refuses the login item', async () => {
    rig = createRig();
    rig.answers.loginItemError = new Error('the login items service is unavailable');
    const result = await rig.handlers['settings:set'](APP, { startAtLogin: true });
    expect(result).toEqual({ ok: false, error: 'Hearth could not change whether it opens at login: the login items service is unavailable.' });
    expect(rig.settings.get().startAtLogin).toBe(false);
    expect(rig.calls).toEqual(['setLoginItem true']);
  });

  it('info:get adds whether one click can trust the certificate, or how to do it by hand', async () => {
    rig = createRig('darwin');
    expect(await rig.handlers['info:get'](APP, null)).toMatchObject({ version: '0.1.0', caFile: null, canTrustCertificate: false, certificateHelp: null });
    rig.answers.info = { ...rig.answers.info, caFile: '/Users/kim/hearth/tls/ca.pem' };
    expect(await rig.handlers['info:get'](APP, null)).toMatchObject({ canTrustCertificate: true, certificateHelp: null, httpsUrl: 'https://hearth.localhost:7471' });
    rig.close();
    rig = createRig('linux');
    rig.answers.info = { ...rig.answers.info, caFile: '/home/kim/.local/share/hearth/tls/ca.pem' };
    const linux = await rig.handlers['info:get'](APP, null);
    expect(linux.canTrustCertificate).toBe(false);
    expect(linux.certificateHelp).toContain('sudo cp "/home/kim/.local/share/hearth/tls/ca.pem" /usr/local/share/ca-certificates/hearth.crt');
    await expect(rig.handlers['info:get'](APP, 'please')).rejects.toBeInstanceOf(IpcPayloadError);
  });
});

describe('IPC handlers: registration with ipcMain', () => {
  it('registers every channel on its wire name, passes the sender frame and the payload, and removes them again', async () => {
    rig = createRig();
    const registered = new Map<string, (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>>();
    const ipc: IpcMainLike = {
      handle: (channel, listener) => void registered.set(channel, listener),
      removeHandler: (channel) => void registered.delete(channel),
    };
    const unregister = registerIpcHandlers(ipc, rig.handlers);
    expect([...registered.keys()].sort()).toEqual(INVOKE_CHANNELS.map(wireName).sort());
    const set = registered.get('hearth:settings:set');
    const result = await set?.({ senderFrame: { url: `${APP_ORIGIN}/settings/desktop`, parent: null } }, { closeToTray: true }, 'ignored');
    expect(result).toMatchObject({ ok: true });
    expect(rig.settings.get().closeToTray).toBe(true);
    await expect(set?.({ senderFrame: null }, { closeToTray: false })).rejects.toBeInstanceOf(IpcSenderError);
    await expect(set?.({ senderFrame: { url: `${APP_ORIGIN}/`, parent: { url: APP_ORIGIN } } }, { closeToTray: false })).rejects.toBeInstanceOf(IpcSenderError);
    expect(rig.settings.get().closeToTray).toBe(true);
    unregister();
    expect(registered.size).toBe(0);
  });
});
