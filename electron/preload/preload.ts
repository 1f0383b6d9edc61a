import { contextBridge, ipcRenderer } from 'electron';
import { createDesktopBridge } from './bridge.js';

/*
 * The window's preload (sandboxed, context-isolated): exposes exactly the typed IPC contract as
 * `window.hearthDesktop`, nothing else. A sandboxed preload can require only 'electron', so
 * scripts/build-electron.mjs bundles this file with the contract into dist/electron/preload.cjs.
 */

contextBridge.exposeInMainWorld('hearthDesktop', createDesktopBridge(ipcRenderer));
