import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, type Stats } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outsideAsar } from '../../api/media/video-frame.js';
import { electronFuses } from '../../electron/security/fuses.js';

/**
 * The desktop app's packaging (build/electron-builder.yml), checked with electron-builder's own code
 * and nothing downloaded: its configuration loader and schema validation (what `electron-builder`
 * runs first), its package.json check, its .desktop file writer, and its file matchers deciding
 * what goes into the archive and what is unpacked beside it. Then the icons the configuration names.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const CONFIG = join(root, 'build', 'electron-builder.yml');
const require = createRequire(import.meta.url);

/** The part of electron-builder's configuration this test reads. */
interface Config {
  appId: string;
  productName: string;
  extraMetadata: Record<string, unknown>;
  files: unknown[];
  asarUnpack: string[];
  npmRebuild: boolean;
  electronFuses: Record<string, boolean>;
  protocols: { name: string; schemes: string[] }[];
  linux: Record<string, unknown> & { target: string[]; executableName: string; icon: string };
  mac: Record<string, unknown> & { target: string[]; icon: string; entitlements: string; hardenedRuntime: boolean };
  win: Record<string, unknown> & { target: string[]; icon: string };
  directories: { output: string; buildResources: string };
  [key: string]: unknown;
}

type Filter = (file: string, stat: Stats & { moduleFullFilePath?: string }) => boolean;
interface Matcher {
  createFilter(): Filter;
}
type Expand = (pattern: string) => string;

// app-builder-lib's modules (CommonJS, no typed deep imports): the parts used here.
const builderConfig = require('app-builder-lib/out/util/config/config.js') as {
  getConfig(projectDir: string, configPath: string): Promise<Config>;
  validateConfiguration(config: unknown, debugLogger: unknown): Promise<void>;
};
const { DebugLogger } = require('builder-util') as { DebugLogger: new (enabled: boolean) => { isEnabled: boolean } };
const packageMetadata = require('app-builder-lib/out/util/packageMetadata.js') as {
  readPackageJson(file: string): Promise<Record<string, unknown>>;
  checkMetadata(metadata: unknown, devMetadata: unknown, appPackageFile: string, devPackageFile: string): void;
};
const { deepAssign } = require('builder-util-runtime') as { deepAssign<T>(target: T, ...sources: unknown[]): T };
const fileMatcher = require('app-builder-lib/out/fileMatcher.js') as {
  getMainFileMatchers(appDir: string, dest: string, expand: Expand, options: unknown, packager: unknown, outDir: string, electronCompile: boolean): Matcher[];
  getNodeModuleFileMatcher(appDir: string, dest: string, expand: Expand, options: unknown, packager: unknown): Matcher;
  getFileMatchers(config: unknown, name: string, dest: string, options: unknown): Matcher[] | null;
};
const { LinuxTargetHelper } = require('app-builder-lib/out/targets/LinuxTargetHelper.js') as {
  LinuxTargetHelper: new (packager: unknown) => { computeDesktopEntry(options: unknown): Promise<string> };
};

const validate = (config: unknown) => builderConfig.validateConfiguration(config, new DebugLogger(false));

/** A file's stat as the builder's filters see it (a module file carries its path inside the app). */
const statOf = (file: string, moduleFullFilePath?: string) => Object.assign(statSync(file), moduleFullFilePath ? { moduleFullFilePath } : {});
/** A stat for a path that need not exist (the filters look only at whether it is a directory). */
const fileStat = { isDirectory: () => false } as Stats;

/** Every file under `dir` (recursively), as absolute paths. */
function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The native code npm installed for this platform: addons, the libraries they link, the ffmpeg binary. */
function nativeFiles(): string[] {
  const modules = join(root, 'node_modules');
  const dirs = [join(modules, 'better-sqlite3', 'prebuilds'), join(modules, 'sharp'), join(modules, '@img'), join(modules, '@ffmpeg-installer')];
  return dirs
    .flatMap((d) => walk(d))
    .filter((f) => /\.(node|so(\.\d+)*|dylib|dll)$/.test(f) || /[\\/]ffmpeg(\.exe)?$/.test(f));
}

describe('the electron-builder configuration', () => {
  let config: Config;
  let scratch: string;
  beforeAll(async () => {
    config = await builderConfig.getConfig(root, CONFIG);
    scratch = mkdtempSync(join(tmpdir(), 'hearth-builder-'));
  });
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it('passes electron-builder’s own validation, and a copy with an unknown key does not', async () => {
    await expect(validate(config)).resolves.toBeUndefined();
    const broken = join(scratch, 'broken.yml');
    writeFileSync(broken, `${readFileSync(CONFIG, 'utf8')}\nautoUpdateEverything: true\n`);
    const loaded = await builderConfig.getConfig(root, broken);
    await expect(validate(loaded)).rejects.toThrow(/unknown property 'autoUpdateEverything'/);
    // A known key with a value of the wrong type fails too.
    await expect(validate({ ...config, npmRebuild: 'yes' })).rejects.toThrow(/npmRebuild/);
  });

  it('names the app, takes its version from package.json and writes the installers under release/', async () => {
    expect(config.appId).toBe('social.hearth.app');
    expect(config.productName).toBe('Hearth');
    expect(config.extraMetadata.version).toBeUndefined();
    expect(config.buildVersion).toBeUndefined();
    expect(config.directories.output).toMatch(/^release\//);
    // What electron-builder checks of package.json once extraMetadata is merged into it.
    const file = join(root, 'package.json');
    const metadata = deepAssign(await packageMetadata.readPackageJson(file), config.extraMetadata);
    expect(() => packageMetadata.checkMetadata(metadata, metadata, file, file)).not.toThrow();
    expect(metadata.version).toBe((JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version);
    expect(metadata.main).toBe('dist/electron/main/main.js');
  });

  it('builds AppImage and deb, dmg with a hardened runtime, and NSIS', () => {
    expect(config.linux.target).toEqual(['AppImage', 'deb']);
    expect(config.mac.target).toEqual(['dmg']);
    expect(config.mac.hardenedRuntime).toBe(true);
    expect(config.win.target).toEqual(['nsis']);
    // The entitlements Node and V8 need under the hardened runtime.
    const plist = readFileSync(join(root, config.mac.entitlements), 'utf8');
    for (const key of ['allow-jit', 'allow-unsigned-executable-memory', 'disable-library-validation']) {
      expect(plist).toMatch(new RegExp(`<key>com\\.apple\\.security\\.cs\\.${key}</key>\\s*<true/>`));
    }
  });

  it('sets the fuses of electron/security/fuses.ts', () => {
    expect(config.electronFuses).toEqual(electronFuses);
    expect(config.electronFuses.runAsNode).toBe(false);
    expect(config.electronFuses.onlyLoadAppFromAsar).toBe(true);
  });

  it('registers web+mastodon and web+ap, and the Linux .desktop file lists them in MimeType', async () => {
    expect(config.protocols.flatMap((p) => p.schemes)).toEqual(['web+mastodon', 'web+ap']);
    // The .desktop file as electron-builder writes it (its packager reduced to what the writer reads).
    const helper = new LinuxTargetHelper({
      appInfo: { productName: config.productName, sanitizedProductName: config.productName, description: 'Hearth' },
      executableName: config.linux.executableName,
      info: { metadata: { desktopName: config.extraMetadata.desktopName } },
      fileAssociations: [],
      config,
      platformSpecificBuildOptions: config.linux,
    });
    const entry = await helper.computeDesktopEntry(config.linux);
    expect(entry).toContain('MimeType=x-scheme-handler/web+mastodon;x-scheme-handler/web+ap;\n');
    expect(entry).toMatch(/^Exec=.*hearth %U$/m);
    expect(entry).toContain('StartupWMClass=hearth\n');
  });

  it('packs the compiled app only, and unpacks every native file beside the archive', () => {
    const expand: Expand = (s) => s;
    const out = join(root, 'release');
    const info = { isPrepackedAppAsar: false, config, projectDir: root, buildResourcesDir: join(root, 'build'), debugLogger: new DebugLogger(false) };
    const app = fileMatcher.getMainFileMatchers(root, '/app', expand, config.linux, { info }, out, false)[0]?.createFilter();
    if (!app) throw new Error('no file matcher');
    const packed = (path: string) => app(join(root, path), fileStat);
    for (const path of ['package.json', 'bin/hearth.js', 'dist/electron/main/main.js', 'dist/electron/host/server-entry.js', 'dist/api/app.js', 'dist/api/db/migrations/0001_foundation.sql', 'dist/relay/protocol.js', 'dist/renderer/index.html', 'build/tray/trayTemplate.png', 'build/icons/512x512.png']) {
      expect(packed(path), path).toBe(true);
    }
    for (const path of ['api/app.ts', 'electron/main/main.ts', 'renderer/src/app.tsx', 'test/build/electron-builder.test.ts', 'bench/desktop.mjs', 'dist/api/app.js.map', 'dist/relay/server.js', 'build/icon.svg', 'docs/desktop-test.md', 'scripts/start.mjs', 'release/0.1.0/Hearth.AppImage']) {
      expect(packed(path), path).toBe(false);
    }

    // Production dependencies are copied with the excludes of `files`; the native files must survive them.
    const modules = fileMatcher.getNodeModuleFileMatcher(root, '/app', expand, config.linux, info).createFilter();
    const unpack = fileMatcher.getFileMatchers(config, 'asarUnpack', '/app', { macroExpander: expand, customBuildOptions: config.linux, globalOutDir: out, defaultSrc: root })?.[0]?.createFilter();
    if (!unpack) throw new Error('no asarUnpack matcher');
    const natives = nativeFiles();
    // This machine's: the better-sqlite3 prebuilds, sharp's addon, libvips, ffmpeg.
    expect(natives.some((f) => f.endsWith('.node') && f.includes('better-sqlite3'))).toBe(true);
    expect(natives.some((f) => /sharp-[a-z0-9]+-[a-z0-9]+\.node$/.test(f))).toBe(true);
    expect(natives.some((f) => f.includes('sharp-libvips'))).toBe(true);
    expect(natives.some((f) => /[\\/]ffmpeg(\.exe)?$/.test(f))).toBe(true);
    for (const file of natives) {
      const inApp = relative(root, file).split('\\').join('/');
      expect(modules(file, statOf(file, inApp)), `${inApp} is copied`).toBe(true);
      expect(unpack(file, statOf(file, inApp)), `${inApp} is unpacked`).toBe(true);
    }
    // Trimmed: better-sqlite3's C sources and docs.
    expect(modules(join(root, 'node_modules/better-sqlite3/deps/sqlite3/sqlite3.c'), { ...fileStat, moduleFullFilePath: 'node_modules/better-sqlite3/deps/sqlite3/sqlite3.c' })).toBe(false);
    expect(modules(join(root, 'node_modules/express/Readme.md'), { ...fileStat, moduleFullFilePath: 'node_modules/express/Readme.md' })).toBe(false);
    // The rest of the code stays in the archive.
    expect(unpack(join(root, 'dist/api/app.js'), fileStat)).toBe(false);
    expect(config.npmRebuild).toBe(false);
  });

  it('spawns ffmpeg from app.asar.unpacked in the packaged app', () => {
    expect(outsideAsar('/opt/Hearth/resources/app.asar/node_modules/@ffmpeg-installer/linux-x64/ffmpeg')).toBe(
      '/opt/Hearth/resources/app.asar.unpacked/node_modules/@ffmpeg-installer/linux-x64/ffmpeg',
    );
    expect(outsideAsar('C:\\Hearth\\resources\\app.asar\\node_modules\\@ffmpeg-installer\\win32-x64\\ffmpeg.exe')).toBe(
      'C:\\Hearth\\resources\\app.asar.unpacked\\node_modules\\@ffmpeg-installer\\win32-x64\\ffmpeg.exe',
    );
    const plain = join(root, 'node_modules/@ffmpeg-installer/linux-x64/ffmpeg');
    expect(outsideAsar(plain)).toBe(plain);
  });
});

/** The PNG images of an ICO file's directory, with the sizes the directory gives. */
function icoEntries(file: Buffer): { width: number; height: number; png: Buffer }[] {
  expect(file.readUInt16LE(0)).toBe(0);
  expect(file.readUInt16LE(2)).toBe(1);
  const count = file.readUInt16LE(4);
  return Array.from({ length: count }, (_, i) => {
    const at = 6 + 16 * i;
    expect(file.readUInt16LE(at + 4)).toBe(1);
    expect(file.readUInt16LE(at + 6)).toBe(32);
    const length = file.readUInt32LE(at + 8);
    const offset = file.readUInt32LE(at + 12);
    return { width: file.readUInt8(at) || 256, height: file.readUInt8(at + 1) || 256, png: file.subarray(offset, offset + length) };
  });
}

/** The elements of an ICNS file: type and data. */
function icnsEntries(file: Buffer): { type: string; png: Buffer }[] {
  expect(file.toString('latin1', 0, 4)).toBe('icns');
  expect(file.readUInt32BE(4)).toBe(file.length);
  const out: { type: string; png: Buffer }[] = [];
  for (let at = 8; at < file.length; ) {
    const length = file.readUInt32BE(at + 4);
    expect(length).toBeGreaterThan(8);
    out.push({ type: file.toString('latin1', at, at + 4), png: file.subarray(at + 8, at + length) });
    at += length;
  }
  return out;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function pixels(data: Buffer | string): Promise<[number | undefined, number | undefined, string | undefined]> {
  const meta = await sharp(data).metadata();
  return [meta.width, meta.height, meta.format];
}

describe('the icons', () => {
  it('has every PNG size, square, from 16 to 1024', async () => {
    for (const size of [16, 24, 32, 48, 64, 128, 256, 512, 1024]) {
      expect(await pixels(join(root, 'build', 'icons', `${size}x${size}.png`))).toEqual([size, size, 'png']);
    }
  });

  it('has an ICO of PNG entries from 16 to 256', async () => {
    const entries = icoEntries(readFileSync(join(root, 'build', 'icon.ico')));
    expect(entries.map((e) => e.width)).toEqual([16, 24, 32, 48, 64, 128, 256]);
    for (const e of entries) {
      expect(e.png.subarray(0, 8).equals(PNG_SIGNATURE)).toBe(true);
      expect(await pixels(e.png)).toEqual([e.width, e.height, 'png']);
    }
  });

  it('has an ICNS of PNG entries ic07 to ic14 at their sizes', async () => {
    const sizes: Record<string, number> = { ic07: 128, ic08: 256, ic09: 512, ic10: 1024, ic11: 32, ic12: 64, ic13: 256, ic14: 512 };
    const entries = icnsEntries(readFileSync(join(root, 'build', 'icon.icns')));
    expect(entries.map((e) => e.type).sort()).toEqual(Object.keys(sizes).sort());
    for (const e of entries) {
      const size = sizes[e.type];
      expect(await pixels(e.png)).toEqual([size, size, 'png']);
    }
  });

  it('has tray icons: macOS templates (black and transparent) and coloured ones, with and without the unread dot', async () => {
    const tray = (name: string) => join(root, 'build', 'tray', name);
    for (const unread of ['', 'Unread']) {
      expect(await pixels(tray(`tray${unread}Template.png`))).toEqual([16, 16, 'png']);
      expect(await pixels(tray(`tray${unread}Template@2x.png`))).toEqual([32, 32, 'png']);
      // A template image is black with alpha only: the system colours it.
      const { data } = await sharp(tray(`tray${unread}Template@2x.png`)).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
      let opaque = 0;
      for (let i = 0; i < data.length; i += 4) {
        if ((data[i + 3] ?? 0) > 0) opaque++;
        expect(Math.max(data[i] ?? 0, data[i + 1] ?? 0, data[i + 2] ?? 0)).toBe(0);
      }
      expect(opaque).toBeGreaterThan(100);
      for (const size of [16, 24, 32]) expect(await pixels(tray(`tray${unread ? '-unread' : ''}-${size}.png`))).toEqual([size, size, 'png']);
    }
    // The unread dot is drawn: the top-right corner differs from the plain icon.
    const corner = async (name: string) => (await sharp(tray(name)).extract({ left: 22, top: 2, width: 8, height: 8 }).raw().toBuffer()).toString('hex');
    expect(await corner('tray-unread-32.png')).not.toBe(await corner('tray-32.png'));
  });
});
