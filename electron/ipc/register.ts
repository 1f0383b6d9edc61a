import { INVOKE_CHANNELS, wireName } from '../contract/ipc.js';
import type { IpcHandlers } from './handlers.js';
import { senderFromFrame, type FrameLike } from './sender.js';

/*
 * Hooks the handlers into Electron's `ipcMain` (or anything shaped like it): one `handle` per
 * invoke channel, on its prefixed wire name, the sender taken from `event.senderFrame`.
 *
 *   const unregister = registerIpcHandlers(ipcMain, createIpcHandlers(deps));
 */

/** The part of an invoke event the handlers read. */
export interface InvokeEventLike {
  readonly senderFrame: FrameLike | null;
}

/** The part of `ipcMain` registration needs. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: InvokeEventLike, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/**
 * Registers a handler per invoke channel; returns the function that removes them again. Only the
 * first argument of an invoke is the payload: extra ones are ignored (the preload sends one).
 */
export function registerIpcHandlers(ipc: IpcMainLike, handlers: IpcHandlers): () => void {
  for (const channel of INVOKE_CHANNELS) {
    const handler = handlers[channel];
    ipc.handle(wireName(channel), (event, payload) => handler(senderFromFrame(event.senderFrame), payload));
  }
  return () => {
    for (const channel of INVOKE_CHANNELS) ipc.removeHandler(wireName(channel));
  };
}
