import type { z } from 'zod';
import type { DesktopSettings, NotificationKinds } from '../contract/ipc.js';
import { defaultSettings, SETTINGS_SCHEMA_VERSION, settingsFields, type StoredSettings } from './schema.js';

/*
 * Migrations of the settings file. The file records the version of its shape under
 * `schemaVersion` (a file without it is version 0, the shape before the key existed). Reading the
 * file runs every step from its version to the current one, then repairs it key by key: a value
 * the schema refuses (a hand edit, a bug) falls back to its default while every other value is
 * kept, so one bad key never costs the person their data directory. The store runs this on every
 * read of the file (store.ts, as its `deserialize`), so the app, electron-store and the tests see
 * the same result; the next write saves the migrated shape.
 *
 * Why not conf's own `migrations` option: it is keyed by the app's version (a settings shape does
 * not change with every release), its author marks it unsupported, and it runs after the file is
 * read, when a value of the old shape would already have been refused by the schema.
 */

type Raw = Record<string, unknown>;

/** One step: the file as version `from` wrote it, to the shape of version `from + 1`. */
type Step = (raw: Raw) => Raw;

function isRecord(value: unknown): value is Raw {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Version 0 (the hypothetical first release, before the desktop settings had a version) kept one
 * switch for every notification (`notifications: boolean`) and the window as `windowState`
 * `{ x, y, width, height, isMaximized }`. Version 1 has a switch per kind and `windowBounds`.
 */
const v0ToV1: Step = (raw) => {
  const { windowState, notifications, ...rest } = raw;
  const next: Raw = { ...rest };
  if (typeof notifications === 'boolean') {
    next.notifications = { mention: notifications, direct: notifications, follow: notifications, follow_request: notifications };
  } else if (notifications !== undefined) {
    next.notifications = notifications;
  }
  if (isRecord(windowState)) {
    const { isMaximized, maximized, ...place } = windowState;
    next.windowBounds = { ...place, maximized: isMaximized === true || maximized === true };
  }
  return next;
};

/** The steps by the version they migrate from: `STEPS[n]` turns version n into n + 1. */
const STEPS: readonly Step[] = [v0ToV1];

if (STEPS.length !== SETTINGS_SCHEMA_VERSION) throw new Error('Every settings version needs a migration step.');

/** The version a file's contents record (0 when they record none, as version 0 wrote them). */
export function storedVersion(raw: Raw): number {
  const version = raw.schemaVersion;
  return typeof version === 'number' && Number.isInteger(version) && version >= 0 ? version : 0;
}

/**
 * Turns what a settings file holds, of any version, into the current shape: runs the migration
 * steps from its version, keeps each value the schema accepts and puts the default in place of
 * each it refuses (or lacks). A file written by a newer Hearth (a higher version) is not
 * downgraded: its known keys are repaired the same way and the rest are kept as they are, so going
 * back to the newer app loses nothing. Anything that is not an object becomes the defaults.
 */
export function migrateSettings(contents: unknown, platform: NodeJS.Platform): StoredSettings {
  let raw: Raw = isRecord(contents) ? { ...contents } : {};
  const from = storedVersion(raw);
  for (let version = from; version < SETTINGS_SCHEMA_VERSION; version++) {
    const step = STEPS[version];
    if (step) raw = step(raw);
  }
  const defaults = defaultSettings(platform);
  const settings: DesktopSettings = {
    windowBounds: valid(settingsFields.windowBounds, raw.windowBounds, defaults.windowBounds),
    startAtLogin: valid(settingsFields.startAtLogin, raw.startAtLogin, defaults.startAtLogin),
    closeToTray: valid(settingsFields.closeToTray, raw.closeToTray, defaults.closeToTray),
    notifications: kinds(raw.notifications, defaults.notifications),
    dataDir: valid(settingsFields.dataDir, raw.dataDir, defaults.dataDir),
    port: valid(settingsFields.port, raw.port, defaults.port),
  };
  // Unknown keys are dropped from a file of this version or older (leftovers of a migration, or a
  // typo); a newer file keeps them for the newer app.
  const kept: Raw = from > SETTINGS_SCHEMA_VERSION ? raw : {};
  return { ...kept, ...settings, schemaVersion: Math.max(from, SETTINGS_SCHEMA_VERSION) };
}

/** The value when the schema accepts it, else the fallback. */
function valid<T>(schema: z.ZodType<T>, value: unknown, fallback: T): T {
  const parsed = schema.safeParse(value);
  return parsed.success ? parsed.data : fallback;
}

/**
 * The notification switches, repaired one by one: a kind added later, or one bad value, must not
 * turn the others back to their defaults.
 */
function kinds(value: unknown, defaults: NotificationKinds): NotificationKinds {
  const merged = { ...defaults };
  if (!isRecord(value)) return merged;
  for (const kind of Object.keys(defaults) as (keyof NotificationKinds)[]) {
    const flag = value[kind];
    if (typeof flag === 'boolean') merged[kind] = flag;
  }
  return merged;
}
