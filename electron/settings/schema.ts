import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { DesktopSettings, NotificationKinds, SettingsChange } from '../contract/ipc.js';

/*
 * The desktop app's settings (electron-store), described once with zod: every value the store
 * keeps and every change the window asks for is checked against these schemas, and the JSON
 * Schema electron-store (conf) validates the file with is generated from them (store.ts), so
 * the two cannot drift apart.
 */

/** The version of the settings' shape; the file records it under `schemaVersion` (migrations.ts). */
export const SETTINGS_SCHEMA_VERSION = 1;

/** What the store's file holds: the settings and the version of their shape. */
export type StoredSettings = DesktopSettings & { schemaVersion: number };

/** Windows smaller than this are not restored (a window that small is a mistake, not a choice). */
const MIN_WIDTH = 320;
const MIN_HEIGHT = 240;
/** Far beyond any screen arrangement: a coordinate past this is a corrupt value. */
const MAX_COORDINATE = 100_000;

const coordinate = z.number().int().min(-MAX_COORDINATE).max(MAX_COORDINATE);

export const windowBoundsSchema = z
  .object({
    x: coordinate,
    y: coordinate,
    width: z.number().int().min(MIN_WIDTH).max(MAX_COORDINATE),
    height: z.number().int().min(MIN_HEIGHT).max(MAX_COORDINATE),
    maximized: z.boolean(),
  })
  .strict();

export const notificationKindsSchema = z
  .object({ mention: z.boolean(), direct: z.boolean(), follow: z.boolean(), follow_request: z.boolean() })
  .strict();

/** Ports below 1024 need privileges on Unix-like systems; Hearth never asks for them. */
export const portSchema = z
  .number({ error: 'The port must be a whole number from 1024 to 65535, or empty for any free port.' })
  .int('The port must be a whole number from 1024 to 65535, or empty for any free port.')
  .min(1024, 'The port must be from 1024 to 65535: lower ports need administrator rights.')
  .max(65535, 'The port must be from 1024 to 65535.');

/** An absolute path of this platform (a relative one would depend on where Hearth was started). */
export const dataDirSchema = z
  .string({ error: 'The data directory must be a folder’s path.' })
  .min(1, 'The data directory must be a folder’s path.')
  .max(4096, 'The data directory’s path is too long.')
  .refine((path) => isAbsolute(path) && !path.includes('\0'), 'The data directory must be a full path, starting at the root of a drive.');

/** Every field of the settings, by name (the store's schema and the per-key repair use them). */
export const settingsFields = {
  windowBounds: windowBoundsSchema.nullable(),
  startAtLogin: z.boolean(),
  closeToTray: z.boolean(),
  notifications: notificationKindsSchema,
  dataDir: dataDirSchema.nullable(),
  port: portSchema.nullable(),
} as const;

export const desktopSettingsSchema = z.object(settingsFields).strict();

export const storedSettingsSchema = z.object({ ...settingsFields, schemaVersion: z.number().int().min(1) }).strict();

/**
 * A change from the window: only these keys (anything else, such as `dataDir` or `windowBounds`,
 * is refused: they have their own paths), at least one of them, each checked.
 */
export const settingsChangeSchema = z
  .object({
    startAtLogin: z.boolean({ error: '“Start at login” must be on or off.' }).optional(),
    closeToTray: z.boolean({ error: '“Close to tray” must be on or off.' }).optional(),
    notifications: z
      .object({ mention: z.boolean(), direct: z.boolean(), follow: z.boolean(), follow_request: z.boolean() })
      .partial()
      .strict()
      .optional(),
    port: portSchema.nullable().optional(),
  })
  .strict()
  .refine((change) => Object.keys(change).length > 0, 'The change names no setting.');

// The schemas and the contract's types must describe the same thing: these fail to compile if not.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const settingsMatchContract: Same<z.infer<typeof desktopSettingsSchema>, DesktopSettings> = true;
const kindsMatchContract: Same<z.infer<typeof notificationKindsSchema>, NotificationKinds> = true;
const changeMatchesContract: Same<Required<z.infer<typeof settingsChangeSchema>>, Required<SettingsChange>> = true;
void [settingsMatchContract, kindsMatchContract, changeMatchesContract];

/**
 * Whether closing the window keeps Hearth running in the tray by default. On macOS an app lives
 * on after its last window closes (the dock and the menu-bar icon reopen it); on Windows, apps
 * that sit in the notification area conventionally keep running there. Many Linux desktops show
 * no tray at all (GNOME without an extension), where a window that "closes to the tray" would
 * leave Hearth running invisibly, so there closing means quitting until the person turns this on.
 */
export function closeToTrayByDefault(platform: NodeJS.Platform): boolean {
  return platform === 'darwin' || platform === 'win32';
}

/**
 * The settings of a fresh install: start at login off, close to tray where the platform expects
 * it, every notification kind on, the data directory and the port chosen by the app.
 */
export function defaultSettings(platform: NodeJS.Platform): DesktopSettings {
  return {
    windowBounds: null,
    startAtLogin: false,
    closeToTray: closeToTrayByDefault(platform),
    notifications: { mention: true, direct: true, follow: true, follow_request: true },
    dataDir: null,
    port: null,
  };
}

/** The first problem zod found, as the sentence it carries (with the field's name where it helps). */
export function firstProblem(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'The settings were not valid.';
  if (issue.code === 'unrecognized_keys') {
    const names = issue.keys.map((key) => [...issue.path, key].join('.'));
    return `These settings cannot be changed from here: ${names.join(', ')}.`;
  }
  if (issue.code === 'invalid_type' && issue.path.length > 0 && !issue.message.endsWith('.')) return `The setting “${issue.path.join('.')}” has the wrong type.`;
  return issue.message.endsWith('.') ? issue.message : `${issue.message}.`;
}
