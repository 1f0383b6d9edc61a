import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { DesktopBridge, DesktopInfo, DesktopSettings, Outcome, SettingsChange } from '../../../../../electron/contract/ipc';
import { toast } from '../../../components/layout/toasts';

/*
 * The desktop app's bridge (`window.hearthDesktop`, exposed by its preload) and the queries the
 * Desktop settings screen reads through it. In a browser there is no bridge and no such screen.
 */

declare global {
  interface Window {
    /** Present only in Hearth's desktop window. */
    hearthDesktop?: DesktopBridge;
  }
}

/** The desktop bridge, or null in a browser. */
export function desktopBridge(): DesktopBridge | null {
  return typeof window !== 'undefined' && window.hearthDesktop ? window.hearthDesktop : null;
}

/** The bridge, for code that runs only where the Desktop screen is shown. */
function bridge(): DesktopBridge {
  const found = desktopBridge();
  if (!found) throw new Error('This is not Hearth’s desktop app.');
  return found;
}

/** A failed desktop call as a sentence. */
export function desktopError(error: unknown): string {
  const message = error instanceof Error ? error.message.trim() : '';
  return message || 'Something went wrong. Please try again.';
}

/** The value of an outcome, or its error thrown (for queries and mutations). */
export function valueOf<T>(outcome: Outcome<T>): T {
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.value;
}

export const SETTINGS_KEY = ['desktop', 'settings'];
export const INFO_KEY = ['desktop', 'info'];

/** The desktop settings (electron-store, through the bridge). */
export function useDesktopSettings() {
  return useQuery({ queryKey: SETTINGS_KEY, queryFn: () => bridge().invoke('settings:get', null), retry: false });
}

/** Version, addresses, data directory and certificate of the running instance. */
export function useDesktopInfo() {
  return useQuery({ queryKey: INFO_KEY, queryFn: () => bridge().invoke('info:get', null), retry: false });
}

/** Calls a channel that answers an Outcome, for code that shows its own result. */
export function invokeOutcome(channel: 'data-dir:choose' | 'backup:create' | 'backup:restore'): Promise<string | null>;
export function invokeOutcome(channel: 'certificate:trust'): Promise<string>;
export function invokeOutcome(channel: 'log:open'): Promise<null>;
export async function invokeOutcome(channel: 'data-dir:choose' | 'backup:create' | 'backup:restore' | 'certificate:trust' | 'log:open'): Promise<string | null> {
  return valueOf(await bridge().invoke(channel, null));
}

/**
 * Changes settings at once, optimistically: the screen shows the change straight away, and goes
 * back (with a message and "Try again") when the main process refuses it.
 */
export function useChangeSettings() {
  const client = useQueryClient();
  const mutation = useMutation({
    mutationFn: async (change: SettingsChange) => valueOf(await bridge().invoke('settings:set', change)),
    onMutate: async (change) => {
      await client.cancelQueries({ queryKey: SETTINGS_KEY });
      const before = client.getQueryData<DesktopSettings>(SETTINGS_KEY);
      if (before) {
        client.setQueryData<DesktopSettings>(SETTINGS_KEY, {
          ...before,
          ...(change.startAtLogin === undefined ? {} : { startAtLogin: change.startAtLogin }),
          ...(change.closeToTray === undefined ? {} : { closeToTray: change.closeToTray }),
          ...(change.port === undefined ? {} : { port: change.port }),
          notifications: { ...before.notifications, ...change.notifications },
        });
      }
      return { before };
    },
    onError: (error, change, context) => {
      if (context?.before) client.setQueryData(SETTINGS_KEY, context.before);
      toast(`The setting was not changed: ${desktopError(error)}`, { retry: () => mutation.mutate(change) });
    },
    onSuccess: (saved) => client.setQueryData(SETTINGS_KEY, saved),
  });
  return mutation;
}

export type { DesktopInfo, DesktopSettings };
