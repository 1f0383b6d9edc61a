import Conf from 'conf';
import { buildSync } from 'esbuild';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wireName, type EventChannel, type EventChannels, type InvokeChannel } from '../../electron/contract/ipc.js';
import { backupDataDir, checkArchive } from '../../electron/data/index.js';
import type { HostInfo } from '../../electron/ipc/deps.js';
import { createIpcHandlers, type IpcHandlers } from '../../electron/ipc/handlers.js';
import type { StoredSettings } from '../../electron/settings/schema.js';
import { SETTINGS_FILE_NAME, SettingsStore, settingsStoreOptions } from '../../electron/settings/store.js';
import { expectCleanPage, openPage, seriousA11yViolations, signInWithToken, useChromium } from '../helpers/chromium.js';
import { useInstance } from '../helpers/fixtures.js';

/*
 * The Desktop settings screen in Chromium against a real instance, talking to the real IPC
 * handlers over the real settings store (conf in a temp directory): only Electron's transport is
 * replaced. The page gets `window.hearthDesktop` from the real bridge (electron/preload/bridge.ts,
 * bundled as the preload is) over a Playwright binding that passes the calling frame's real URL
 * as the sender. What Electron itself would do (dialogs, the login item, running the certificate
 * tool) is recorded; the backup is the real data module's, on the instance's real data.
 */

const BRIDGE = buildSync({
  entryPoints: [fileURLToPath(new URL('../../electron/preload/bridge.ts', import.meta.url))],
  bundle: true,
  format: 'iife',
  globalName: '__hearthBridgeModule',
  write: false,
  logLevel: 'silent',
}).outputFiles[0]?.text;

// The transport in the page: ipcRenderer's part the bridge uses, over the binding; events come in
// through __hearthIpcDeliver. (A string: it runs in the page, which the test's types do not know.)
const TRANSPORT = `${BRIDGE}
(() => {
  const listeners = new Map();
  window.__hearthIpcDeliver = (channel, payload) => { for (const l of listeners.get(channel) ?? []) l({ sender: 'ipc' }, payload); };
  window.hearthDesktop = __hearthBridgeModule.createDesktopBridge({
    invoke: (channel, payload) => window.__hearthIpcInvoke(channel, payload),
    on: (channel, listener) => { if (!listeners.has(channel)) listeners.set(channel, new Set()); listeners.get(channel).add(listener); },
    removeListener: (channel, listener) => listeners.get(channel)?.delete(listener),
  });
})();`;

describe('desktop settings in the app', () => {
  const env = useInstance(['kim']);
  const browser = useChromium();
  let dir: string;
  let storeOf: () => SettingsStore;
  let handlers: IpcHandlers;
  let page: Page | null = null;
  const calls: string[] = [];
  const commands: string[][] = [];
  const progress: EventChannels['progress'][] = [];
  let info: HostInfo;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'hearth-desktop-e2e-'));
    const open = () => new SettingsStore(new Conf<StoredSettings>({ ...settingsStoreOptions('darwin'), cwd: dir, configName: SETTINGS_FILE_NAME }));
    storeOf = open;
    const { inst } = env();
    const caFile = join(dir, 'ca.pem');
    writeFileSync(caFile, '-----BEGIN CERTIFICATE-----\n');
    info = { version: '0.1.0', platform: 'darwin', dataDir: inst.dataDir, localUrl: `${inst.url}/`, httpsUrl: 'https://hearth.localhost:7471', caFile, publicOrigin: 'https://kim.example' };
    handlers = createIpcHandlers({
      settings: open(),
      appOrigin: () => new URL(inst.url).origin,
      hostInfo: () => info,
      trustEnvironment: { platform: 'darwin', homeDir: '/Users/kim' },
      runCommand: async (file, args) => {
        commands.push([file, ...args]);
        return { exitCode: 0, stdout: '', stderr: '' };
      },
      chooseFolder: async () => null,
      chooseBackupTarget: async (name) => {
        calls.push(`save dialog ${name}`);
        return join(dir, name);
      },
      chooseBackupSource: async () => {
        const notABackup = join(dir, 'holiday.jpg');
        writeFileSync(notABackup, 'not an archive at all');
        return notABackup;
      },
      backup: async (target, onProgress) => {
        await backupDataDir({ dataDir: inst.dataDir, archivePath: target, onProgress });
      },
      // The real check a restore makes before it replaces anything (this one never gets further).
      restore: async (source) => {
        await checkArchive(source);
        throw new Error('this test restores nothing');
      },
      restartServer: async () => void calls.push('restart'),
      openLog: async () => void calls.push('open log'),
      setLoginItem: (enabled) => void calls.push(`login item ${enabled}`),
      emit: <C extends EventChannel>(channel: C, payload: EventChannels[C]) => {
        if (channel === 'progress') progress.push(payload as EventChannels['progress']);
        void page?.evaluate(([wire, body]) => window.__hearthIpcDeliver(wire, body), [wireName(channel), payload] as const).catch(() => undefined);
      },
    });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** A signed-in page with the desktop bridge, like the desktop window. */
  async function desktopPage(colorScheme: 'light' | 'dark' = 'light'): Promise<{ context: BrowserContext; page: Page }> {
    const { inst, users } = env();
    const opened = await openPage(browser(), { colorScheme });
    await opened.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: inst.url });
    await opened.context.exposeBinding('__hearthIpcInvoke', async (source, wire: string, payload: unknown) => {
      const channel = wire.replace(/^hearth:/, '') as InvokeChannel;
      const handler = handlers[channel];
      if (!wire.startsWith('hearth:') || !handler) throw new Error(`no handler for ${wire}`);
      return handler({ frameUrl: source.frame.url(), isMainFrame: source.frame === source.page.mainFrame() }, payload);
    });
    await opened.context.addInitScript({ content: TRANSPORT });
    await signInWithToken(opened.page, inst, users.kim);
    page = opened.page;
    return opened;
  }

  it('saves switches, notification kinds and the port in the store, refusing a bad port with a sentence', { timeout: 60_000 }, async () => {
    const { inst } = env();
    const { context, page } = await desktopPage();
    await page.goto(`${inst.url}/settings`);
    await page.getByRole('link', { name: 'Desktop' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: Desktop' }).waitFor({ timeout: 15_000 });

    const atLogin = page.getByRole('checkbox', { name: 'Open Hearth when I log in to this computer' });
    expect(await atLogin.isChecked()).toBe(false);
    // macOS: closing to the tray is on by default.
    expect(await page.getByRole('checkbox', { name: 'Keep Hearth running in the tray when I close its window' }).isChecked()).toBe(true);
    await atLogin.check();
    await expect.poll(() => storeOf().get().startAtLogin, { timeout: 15_000 }).toBe(true);
    expect(calls).toContain('login item true');

    await page.getByRole('checkbox', { name: 'Direct messages' }).uncheck();
    await expect.poll(() => storeOf().get().notifications, { timeout: 15_000 }).toEqual({ mention: true, direct: false, follow: true, follow_request: true });

    const port = page.getByLabel('Port');
    await port.fill('80');
    await page.getByRole('button', { name: 'Save port' }).click();
    await page.getByRole('alert').filter({ hasText: 'The port must be from 1024 to 65535.' }).waitFor({ timeout: 15_000 });
    expect(await port.getAttribute('aria-invalid')).toBe('true');
    expect(storeOf().get().port).toBeNull();
    await port.fill('7480');
    await page.getByRole('button', { name: 'Save port' }).click();
    await page.getByText('The port is saved. Hearth uses it the next time it starts.').waitFor({ timeout: 15_000 });
    expect(storeOf().get().port).toBe(7480);

    // A reload reads everything back from the store.
    await page.reload();
    await page.getByLabel('Port').waitFor({ timeout: 15_000 });
    expect(await page.getByLabel('Port').inputValue()).toBe('7480');
    expect(await page.getByRole('checkbox', { name: 'Direct messages' }).isChecked()).toBe(false);
    expect(await page.getByRole('checkbox', { name: 'Open Hearth when I log in to this computer' }).isChecked()).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expectCleanPage(page);
    await context.close();
  });

  it('shows the address for other apps, copies it, trusts the certificate, and shows the QR code for phones (dark theme, no serious a11y finding)', { timeout: 60_000 }, async () => {
    const { inst } = env();
    const { context, page } = await desktopPage('dark');
    await page.goto(`${inst.url}/settings/desktop`);
    const address = page.getByRole('textbox', { name: 'Address for other apps' });
    await address.waitFor({ timeout: 15_000 });
    expect(await address.inputValue()).toBe('https://hearth.localhost:7471');
    await page.getByRole('button', { name: 'Copy address' }).click();
    await page.getByRole('status').filter({ hasText: 'The address is copied.' }).waitFor({ timeout: 15_000 });
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe('https://hearth.localhost:7471');

    await page.getByRole('button', { name: 'Trust certificate' }).click();
    await page.getByRole('status').filter({ hasText: 'The certificate is trusted.' }).waitFor({ timeout: 15_000 });
    expect(commands).toEqual([['/usr/bin/security', 'add-trusted-cert', '-r', 'trustRoot', '-k', '/Users/kim/Library/Keychains/login.keychain-db', info.caFile ?? '']]);

    const qr = page.getByRole('img', { name: 'QR code of https://kim.example' });
    await qr.waitFor({ timeout: 15_000 });
    const box = await qr.boundingBox();
    expect(box && box.width > 100 && box.height > 100).toBe(true);
    // The QR code holds dark modules (its path is drawn), and its address is there as text.
    expect((await qr.locator('path').getAttribute('d'))?.length).toBeGreaterThan(100);
    await page.getByText('https://kim.example', { exact: true }).waitFor();
    expect(await page.getByText('Hearth 0.1.0 on macOS').count()).toBe(1);
    await page.getByRole('button', { name: 'Open the log' }).click();
    await expect.poll(() => calls.includes('open log'), { timeout: 15_000 }).toBe(true);
    expect(await seriousA11yViolations(page)).toEqual([]);
    expectCleanPage(page);
    await context.close();
  });

  it('backs up the instance with a progress bar, and explains a refused restore in a sentence', { timeout: 60_000 }, async () => {
    const { inst } = env();
    const { context, page } = await desktopPage();
    await page.goto(`${inst.url}/settings/desktop`);
    await page.getByRole('button', { name: 'Back up…' }).waitFor({ timeout: 15_000 });
    // Every progress text the page shows, as it shows it.
    await page.evaluate(`
      window.__seenProgress = [];
      new MutationObserver(() => {
        const bar = document.querySelector('progress');
        if (bar) window.__seenProgress.push(bar.getAttribute('aria-label') + ' ' + bar.value);
      }).observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
    `);
    await page.getByRole('button', { name: 'Back up…' }).click();
    const archive = join(dir, 'hearth-backup-' + new Date().toISOString().slice(0, 10) + '.tar.gz');
    await page.getByRole('status').filter({ hasText: `The backup is saved in ${archive}.` }).waitFor({ timeout: 15_000 });
    expect(statSync(archive).size).toBeGreaterThan(0);
    expect((await checkArchive(archive)).files).toBeGreaterThan(0);
    expect(progress.at(-1)).toEqual({ operation: 'backup', fraction: 1, stage: 'done' });
    const seen = (await page.evaluate(() => window.__seenProgress)) as string[];
    // The bar moved with the data module's progress events, not only its empty start.
    expect(seen.some((s) => s.startsWith('Backup progress ') && Number(s.split(' ').at(-1)) > 0)).toBe(true);

    await page.getByRole('button', { name: 'Restore from a backup…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore from a backup?' });
    await dialog.getByRole('button', { name: 'Choose a backup and restore' }).click();
    const refusal = page.getByRole('alert').filter({ hasText: /^The backup was not restored: .+\.$/ });
    await refusal.waitFor({ timeout: 15_000 });
    expect(await refusal.textContent()).toMatch(/not a Hearth backup|not.*archive/i);
    expectCleanPage(page);
    await context.close();
  });

  it('refuses a subframe and another origin; a browser without the bridge shows no Desktop section', { timeout: 60_000 }, async () => {
    const { inst, users } = env();
    const { context, page } = await desktopPage();
    // A page of the app's origin holding a frame of the same origin: only the main frame is heard.
    await page.route(`${inst.url}/frame-test`, (route) => route.fulfill({ contentType: 'text/html', body: `<iframe src="${inst.url}/frame-child"></iframe>` }));
    await page.route(`${inst.url}/frame-child`, (route) => route.fulfill({ contentType: 'text/html', body: '<p>child</p>' }));
    await page.goto(`${inst.url}/frame-test`);
    const child = page.frames().find((f) => f.url().endsWith('/frame-child'));
    expect(child).toBeDefined();
    await child?.waitForFunction(() => window.hearthDesktop !== undefined);
    const before = storeOf().get();
    const fromChild = await child?.evaluate(() => window.hearthDesktop.invoke('settings:set', { closeToTray: false }).then(() => 'accepted', (e: Error) => e.message));
    expect(fromChild).toMatch(/Refused settings:set: the call came from a subframe\./);
    // The same origin on another name is another origin.
    const other = inst.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${other}/settings`);
    const fromOther = await page.evaluate(() => window.hearthDesktop.invoke('settings:get', null).then(() => 'accepted', (e: Error) => e.message));
    expect(fromOther).toMatch(/Refused settings:get: the sending page is not the app/);
    expect(storeOf().get()).toEqual(before);
    await context.close();

    // The browser app: no bridge, no Desktop section, and no such page.
    const plain = await openPage(browser());
    await signInWithToken(plain.page, inst, users.kim);
    await plain.page.goto(`${inst.url}/settings`);
    await plain.page.getByRole('navigation', { name: 'Settings sections' }).waitFor({ timeout: 15_000 });
    expect(await plain.page.getByRole('link', { name: 'Preferences' }).count()).toBe(1);
    expect(await plain.page.getByRole('link', { name: 'Desktop' }).count()).toBe(0);
    await plain.page.goto(`${inst.url}/settings/desktop`);
    await plain.page.getByText('There is no such settings section.').waitFor({ timeout: 15_000 });
    expectCleanPage(plain.page);
    await plain.context.close();
  });
});
