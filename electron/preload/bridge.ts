import {
  EVENT_CHANNELS,
  INVOKE_CHANNELS,
  wireName,
  type DesktopBridge,
  type EventChannel,
  type EventChannels,
  type InvokeChannel,
  type InvokeChannels,
} from '../contract/ipc.js';

/*
 * The bridge the preload exposes as `window.hearthDesktop` (preload.ts), built from the part of
 * `ipcRenderer` it uses so it runs under Node and in a test page too. Only the contract's channels
 * go through, on their prefixed wire names; a listener gets the payload alone, never Electron's
 * `IpcRendererEvent` (whose `sender` would hand the page the whole ipcRenderer).
 */

/** A listener as ipcRenderer calls it: the event first, then the payload. */
export type WireListener = (event: unknown, payload: unknown) => void;

/** What the bridge needs of `ipcRenderer`. */
export interface IpcRendererLike {
  invoke(channel: string, payload: unknown): Promise<unknown>;
  on(channel: string, listener: WireListener): unknown;
  removeListener(channel: string, listener: WireListener): unknown;
}

const invokeChannels = new Set<string>(INVOKE_CHANNELS);
const eventChannels = new Set<string>(EVENT_CHANNELS);

/**
 * Electron rejects a failed invoke with "Error invoking remote method 'hearth:…': Error: reason";
 * the page gets the reason alone.
 */
export function cleanIpcError(error: unknown): Error {
  const message = error instanceof Error ? error.message : String(error);
  return new Error(message.replace(/^Error invoking remote method '[^']*': (?:[A-Za-z]*Error: )?/, ''));
}

/** Builds `DesktopBridge` over an ipcRenderer. */
export function createDesktopBridge(ipc: IpcRendererLike): DesktopBridge {
  const bridge: DesktopBridge = {
    invoke<C extends InvokeChannel>(channel: C, request: InvokeChannels[C]['request']): Promise<InvokeChannels[C]['response']> {
      if (typeof channel !== 'string' || !invokeChannels.has(channel)) return Promise.reject(new Error(`Hearth has no desktop call named ${String(channel)}.`));
      // The contract says what each channel answers; the main process's handler guarantees it.
      return ipc.invoke(wireName(channel), request ?? null).then(
        (response) => response as InvokeChannels[C]['response'],
        (error: unknown) => Promise.reject(cleanIpcError(error)),
      );
    },
    on<C extends EventChannel>(channel: C, listener: (payload: EventChannels[C]) => void): () => void {
      if (typeof channel !== 'string' || !eventChannels.has(channel)) throw new Error(`Hearth has no desktop event named ${String(channel)}.`);
      if (typeof listener !== 'function') throw new Error('A desktop event needs a listener function.');
      const wire = wireName(channel);
      // The main process sends only the contract's payload on this channel.
      const unwrapped: WireListener = (_event, payload) => listener(payload as EventChannels[C]);
      ipc.on(wire, unwrapped);
      let subscribed = true;
      return () => {
        if (!subscribed) return;
        subscribed = false;
        ipc.removeListener(wire, unwrapped);
      };
    },
  };
  return Object.freeze(bridge);
}
