import Conf from 'conf';
import type ElectronStore from 'electron-store';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { migrateSettings } from '../../electron/settings/migrations.js';
import { closeToTrayByDefault, defaultSettings, SETTINGS_SCHEMA_VERSION, type StoredSettings } from '../../electron/settings/schema.js';
import { SETTINGS_FILE_NAME, SettingsStore, settingsStoreOptions } from '../../electron/settings/store.js';

/*
 * The desktop settings with the real store: conf (electron-store's base) in a temp directory,
 * built with the same options electron-store gets in the app.
 */

// What electron/main does with electron-store (which cannot run here) type-checks with these options:
// `new Store<StoredSettings>({ ...settingsStoreOptions(), name: SETTINGS_FILE_NAME })`, then
// `new SettingsStore(store)`.
type ElectronStoreOptions = NonNullable<ConstructorParameters<typeof ElectronStore<StoredSettings>>[0]>;
const electronStoreOptions: ElectronStoreOptions = { ...settingsStoreOptions('linux'), name: SETTINGS_FILE_NAME };
const electronStoreIsABackend: (store: ElectronStore<StoredSettings>) => SettingsStore = (store) => new SettingsStore(store);
void [electronStoreOptions, electronStoreIsABackend];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-settings-'));
  dirs.push(dir);
  return dir;
}

function openConf(dir: string, platform: NodeJS.Platform = 'linux'): Conf<StoredSettings> {
  return new Conf<StoredSettings>({ ...settingsStoreOptions(platform), cwd: dir, configName: SETTINGS_FILE_NAME });
}

function open(dir: string, platform: NodeJS.Platform = 'linux'): SettingsStore {
  return new SettingsStore(openConf(dir, platform));
}

const fileOf = (dir: string): string => join(dir, `${SETTINGS_FILE_NAME}.json`);
const readFile = (dir: string): Record<string, unknown> => JSON.parse(readFileSync(fileOf(dir), 'utf8')) as Record<string, unknown>;

describe('desktop settings: defaults', () => {
  it('a fresh install: off at login, every notification on, app-chosen data directory and port', () => {
    const settings = open(tempDir()).get();
    expect(settings).toEqual({
      windowBounds: null,
      startAtLogin: false,
      closeToTray: false,
      notifications: { mention: true, direct: true, follow: true, follow_request: true },
      dataDir: null,
      port: null,
    });
  });

  it('closes to the tray by default on macOS and Windows, not on Linux (where many desktops show no tray)', () => {
    expect(open(tempDir(), 'darwin').get().closeToTray).toBe(true);
    expect(open(tempDir(), 'win32').get().closeToTray).toBe(true);
    expect(open(tempDir(), 'linux').get().closeToTray).toBe(false);
    expect(closeToTrayByDefault('freebsd')).toBe(false);
    expect(defaultSettings('darwin').closeToTray).toBe(true);
  });

  it('writes the schema version into a new file', () => {
    const dir = tempDir();
    open(dir);
    expect(readFile(dir).schemaVersion).toBe(SETTINGS_SCHEMA_VERSION);
  });
});

describe('desktop settings: changes and refusals', () => {
  it('saves a change, keeps it across a restart, and merges notification kinds one by one', () => {
    const dir = tempDir();
    const store = open(dir);
    const changed = store.change({ startAtLogin: true, closeToTray: true, port: 7480, notifications: { follow: false } });
    expect(changed.ok).toBe(true);
    const again = open(dir).get();
    expect(again).toMatchObject({ startAtLogin: true, closeToTray: true, port: 7480, notifications: { mention: true, direct: true, follow: false, follow_request: true } });
    expect(store.change({ port: null }).ok).toBe(true);
    expect(open(dir).get().port).toBeNull();
    expect(store.setDataDir(join(dir, 'data')).ok).toBe(true);
    expect(store.setWindowBounds({ x: -1200, y: 40, width: 1000, height: 700, maximized: true }).ok).toBe(true);
    expect(open(dir).get()).toMatchObject({ dataDir: join(dir, 'data'), windowBounds: { x: -1200, y: 40, width: 1000, height: 700, maximized: true } });
  });

  const refused: [string, unknown, RegExp][] = [
    ['a privileged port', { port: 80 }, /1024 to 65535/],
    ['a port out of range', { port: 70000 }, /1024 to 65535/],
    ['a fractional port', { port: 7470.5 }, /whole number/],
    ['a port as text', { port: '7470' }, /whole number/],
    ['a switch as text', { startAtLogin: 'yes' }, /must be on or off/],
    ['the data directory (it has its own call)', { dataDir: '/tmp/x' }, /cannot be changed from here: dataDir/],
    ['the window bounds (the main process keeps them)', { windowBounds: null }, /cannot be changed from here: windowBounds/],
    ['an unknown notification kind', { notifications: { favourite: true } }, /cannot be changed from here: notifications\.favourite/],
    ['a notification switch as a number', { notifications: { mention: 1 } }, /notifications\.mention/],
    ['an empty change', {}, /names no setting/],
    ['null', null, /\.$/],
    ['a list', [{ port: 7470 }], /\.$/],
    ['a prototype key', JSON.parse('{"__proto__": {"startAtLogin": true}}'), /\.$/],
  ];
  for (const [what, change, message] of refused) {
    it(`refuses ${what} with a sentence and writes nothing`, () => {
      const dir = tempDir();
      const store = open(dir);
      store.change({ closeToTray: true });
      const before = readFileSync(fileOf(dir), 'utf8');
      const result = store.change(change);
      expect(result.ok).toBe(false);
      if (!result.ok) {
        expect(result.error).toMatch(message);
        expect(result.error).toMatch(/^[A-Z“].*\.$/);
      }
      expect(readFileSync(fileOf(dir), 'utf8')).toBe(before);
      expect(store.get().startAtLogin).toBe(false);
    });
  }

  it('refuses a relative data directory and a window too small to use', () => {
    const dir = tempDir();
    const store = open(dir);
    const before = readFileSync(fileOf(dir), 'utf8');
    const relative = store.setDataDir('hearth-data');
    expect(relative).toEqual({ ok: false, error: 'The data directory must be a full path, starting at the root of a drive.' });
    expect(store.setDataDir('').ok).toBe(false);
    expect(store.setWindowBounds({ x: 0, y: 0, width: 10, height: 10, maximized: false }).ok).toBe(false);
    expect(store.setWindowBounds({ x: 0, y: 0, width: 800, height: 600 }).ok).toBe(false);
    expect(readFileSync(fileOf(dir), 'utf8')).toBe(before);
  });

  it('the store itself refuses a bad value written past SettingsStore (its JSON Schema, made from the same zod schemas)', () => {
    const dir = tempDir();
    const conf = openConf(dir);
    const before = readFileSync(fileOf(dir), 'utf8');
    expect(() => conf.set('port', 80)).toThrow(/port/);
    expect(() => conf.set('notifications', { mention: true } as never)).toThrow(/notifications/);
    expect(() => conf.set('windowBounds', { x: 0, y: 0, width: 800, height: 600, maximized: false, extra: 1 } as never)).toThrow(/windowBounds/);
    expect(readFileSync(fileOf(dir), 'utf8')).toBe(before);
    conf.set('port', 8123);
    expect(readFile(dir).port).toBe(8123);
  });
});

describe('desktop settings: migrations', () => {
  const v0 = {
    notifications: false,
    windowState: { x: 10, y: 20, width: 900, height: 650, isMaximized: true },
    startAtLogin: true,
    dataDir: '/srv/hearth',
    port: 7490,
  };

  it('migrates a version 0 file (one notification switch, windowState) and saves the new shape', () => {
    const dir = tempDir();
    writeFileSync(fileOf(dir), JSON.stringify(v0));
    const store = open(dir, 'win32');
    expect(store.get()).toEqual({
      windowBounds: { x: 10, y: 20, width: 900, height: 650, maximized: true },
      startAtLogin: true,
      closeToTray: true,
      notifications: { mention: false, direct: false, follow: false, follow_request: false },
      dataDir: '/srv/hearth',
      port: 7490,
    });
    const onDisk = readFile(dir);
    expect(onDisk.schemaVersion).toBe(1);
    expect(onDisk).not.toHaveProperty('windowState');
    expect(onDisk.notifications).toEqual({ mention: false, direct: false, follow: false, follow_request: false });
    // Opening the migrated file again changes nothing.
    expect(open(dir, 'win32').get()).toEqual(store.get());
  });

  it('the migration is a pure function of the file: each step, then a repair key by key', () => {
    expect(migrateSettings({ notifications: true }, 'linux').notifications).toEqual({ mention: true, direct: true, follow: true, follow_request: true });
    // Bad values fall back to their defaults one by one; the good ones (the data directory) stay.
    const repaired = migrateSettings({ schemaVersion: 1, port: 80, dataDir: '/home/kim/hearth', startAtLogin: 'yes', notifications: { mention: false, direct: 'no' }, junk: 1 }, 'linux');
    expect(repaired).toEqual({ ...defaultSettings('linux'), dataDir: '/home/kim/hearth', notifications: { mention: false, direct: true, follow: true, follow_request: true }, schemaVersion: 1 });
    // A file from a newer Hearth keeps its version and the keys this one does not know.
    const newer = migrateSettings({ schemaVersion: 7, port: 7500, theme: 'dark' }, 'linux');
    expect(newer).toMatchObject({ schemaVersion: 7, port: 7500, theme: 'dark' });
    // Anything that is not an object is the defaults.
    for (const junk of [null, 'text', [1, 2], 42]) expect(migrateSettings(junk, 'darwin')).toEqual({ ...defaultSettings('darwin'), schemaVersion: 1 });
  });

  it('a hand-edited file with a bad value keeps everything else; a file that is not JSON gives the defaults', () => {
    const dir = tempDir();
    writeFileSync(fileOf(dir), JSON.stringify({ schemaVersion: 1, port: 'seven', dataDir: '/data/hearth', startAtLogin: true }));
    expect(open(dir).get()).toMatchObject({ port: null, dataDir: '/data/hearth', startAtLogin: true });
    const broken = tempDir();
    writeFileSync(fileOf(broken), '{"schemaVersion": 1, "port": ');
    expect(open(broken).get()).toEqual(defaultSettings('linux'));
    expect(readFile(broken).schemaVersion).toBe(1);
  });
});
