import type { Options as ConfOptions, Schema } from 'conf';
import { z } from 'zod';
import type { DesktopSettings, Outcome } from '../contract/ipc.js';
import { migrateSettings } from './migrations.js';
import {
  dataDirSchema,
  defaultSettings,
  firstProblem,
  settingsChangeSchema,
  SETTINGS_SCHEMA_VERSION,
  settingsFields,
  storedSettingsSchema,
  type StoredSettings,
  windowBoundsSchema,
} from './schema.js';

/*
 * The settings store: the options electron-store (in the app) and conf (its plain-Node base, in
 * tests) are built with, so both read, migrate and validate the file alike, and `SettingsStore`,
 * the one way the rest of the app reads and changes the settings (every change checked first;
 * a refused change writes nothing).
 *
 * In electron/main:
 *   const store = new Store<StoredSettings>({ ...settingsStoreOptions(), name: SETTINGS_FILE_NAME });
 *   const settings = new SettingsStore(store, process.platform);
 */

/** The settings file's name (without `.json`) in the app's user-data folder. */
export const SETTINGS_FILE_NAME = 'desktop-settings';

/** The options both electron-store and conf take for the settings file. */
export type SettingsStoreOptions = Required<
  Pick<ConfOptions<StoredSettings>, 'schema' | 'defaults' | 'deserialize' | 'clearInvalidConfig' | 'accessPropertiesByDotNotation'>
>;

/** The JSON Schema (draft 2020-12) of each key, generated from the zod schemas. */
function jsonSchemaOfKeys(): Schema<StoredSettings> {
  const whole = z.toJSONSchema(storedSettingsSchema, { io: 'input', unrepresentable: 'any' }) as { properties?: unknown };
  // zod's JSON Schema type and conf's (json-schema-typed) describe the same draft in different
  // TypeScript shapes; the value is plain JSON Schema, which conf's validator (ajv) reads.
  return whole.properties as Schema<StoredSettings>;
}

/**
 * The options for `new Store(...)` (electron-store) or `new Conf(...)`: the schema of every key,
 * the defaults for this platform, the migrations (run as the file is read: migrations.ts), and a
 * file that cannot be parsed at all replaced by the defaults rather than stopping the app.
 * Keys are plain names (no dot paths): `notifications` is written as a whole.
 */
export function settingsStoreOptions(platform: NodeJS.Platform = process.platform): SettingsStoreOptions {
  return {
    schema: jsonSchemaOfKeys(),
    defaults: { ...defaultSettings(platform), schemaVersion: SETTINGS_SCHEMA_VERSION },
    deserialize: (text: string) => migrateSettings(JSON.parse(text.replace(/^\uFEFF/, '')), platform),
    clearInvalidConfig: true,
    accessPropertiesByDotNotation: false,
  };
}

/** What SettingsStore needs of electron-store or conf (both have it). */
export interface SettingsBackend {
  readonly store: StoredSettings;
  set(values: Partial<StoredSettings>): void;
}

/** Reads and changes the desktop settings; every change is validated before anything is written. */
export class SettingsStore {
  readonly #backend: SettingsBackend;

  /**
   * Wraps an opened store. The file is written back once, so a file of an older shape is saved
   * migrated (reading migrates it in memory already; this makes it stick).
   */
  constructor(backend: SettingsBackend) {
    this.#backend = backend;
    this.#backend.set({ schemaVersion: this.#backend.store.schemaVersion });
  }

  /** The current settings (a fresh copy). */
  get(): DesktopSettings {
    const stored = this.#backend.store;
    const settings: DesktopSettings = {
      windowBounds: stored.windowBounds ? { ...stored.windowBounds } : null,
      startAtLogin: stored.startAtLogin,
      closeToTray: stored.closeToTray,
      notifications: { ...stored.notifications },
      dataDir: stored.dataDir,
      port: stored.port,
    };
    return settings;
  }

  /**
   * Applies a change from the window (`SettingsChange`): refused with a sentence, and nothing
   * written, when it is not one; notification kinds it leaves out keep their values.
   */
  change(input: unknown): Outcome<{ before: DesktopSettings; after: DesktopSettings }> {
    const parsed = settingsChangeSchema.safeParse(input);
    if (!parsed.success) return { ok: false, error: firstProblem(parsed.error) };
    const before = this.get();
    const { notifications, ...rest } = parsed.data;
    const values: Partial<StoredSettings> = {};
    if (rest.startAtLogin !== undefined) values.startAtLogin = rest.startAtLogin;
    if (rest.closeToTray !== undefined) values.closeToTray = rest.closeToTray;
    if (rest.port !== undefined) values.port = rest.port;
    if (notifications) values.notifications = { ...before.notifications, ...notifications };
    this.#backend.set(values);
    return { ok: true, value: { before, after: this.get() } };
  }

  /** Sets the data directory (an absolute path, or null for the default); refused otherwise. */
  setDataDir(dir: unknown): Outcome<DesktopSettings> {
    const parsed = dataDirSchema.nullable().safeParse(dir);
    if (!parsed.success) return { ok: false, error: firstProblem(parsed.error) };
    this.#backend.set({ dataDir: parsed.data });
    return { ok: true, value: this.get() };
  }

  /** Remembers the window's place and size (from the main process); refused when not sensible. */
  setWindowBounds(bounds: unknown): Outcome<DesktopSettings> {
    const parsed = windowBoundsSchema.nullable().safeParse(bounds);
    if (!parsed.success) return { ok: false, error: firstProblem(parsed.error) };
    this.#backend.set({ windowBounds: parsed.data });
    return { ok: true, value: this.get() };
  }
}

/** Every key of the settings (for tests and for code that walks them). */
export const SETTINGS_KEYS = Object.keys(settingsFields) as (keyof DesktopSettings)[];
