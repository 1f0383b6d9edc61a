import { INVOKE_CHANNELS, type DataProgress, type InvokeChannel, type InvokeChannels, type Outcome } from '../contract/ipc.js';
import { certificateTrustPlan, trustCertificate } from './certificate.js';
import type { IpcDeps, ProgressUpdate } from './deps.js';
import { dataDirProblem } from './folder.js';
import { senderRefusal, type Sender } from './sender.js';

/*
 * The main process's answers to the window's calls: one handler per invoke channel of the
 * contract (electron/contract/ipc.ts). Each checks the sender first (sender.ts: only the app's
 * own main frame), then the payload, then acts through its deps. A refused sender, or a bad
 * payload on a channel that answers plain data, throws (the caller is not the app, or the app
 * has a bug); a channel that answers an `Outcome` reports a bad payload or a failure as
 * `{ ok: false, error }`, a sentence the window shows. A refused call changes nothing.
 */

/** A handler of one channel: the sender (from the IPC event) and the payload as it arrived. */
export type IpcHandler<C extends InvokeChannel> = (sender: Sender, payload: unknown) => Promise<InvokeChannels[C]['response']>;

/** One handler per invoke channel. */
export type IpcHandlers = { [C in InvokeChannel]: IpcHandler<C> };

/** Thrown for a call from anything but the app's main frame. */
export class IpcSenderError extends Error {
  constructor(channel: InvokeChannel, reason: string) {
    super(`Refused ${channel}: ${reason}.`);
    this.name = 'IpcSenderError';
  }
}

/** Thrown for a payload a plain-data channel does not take. */
export class IpcPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IpcPayloadError';
  }
}

/** A failure as a sentence: `prefix: reason.` */
function failure(prefix: string, error: unknown): { ok: false; error: string } {
  const reason = (error instanceof Error ? error.message : String(error)).trim().replace(/\.$/, '');
  return { ok: false, error: reason ? `${prefix}: ${reason}.` : `${prefix}.` };
}

/** Channels that take no payload accept nothing but null (or nothing at all). */
function isEmpty(payload: unknown): boolean {
  return payload === null || payload === undefined;
}

const NO_PAYLOAD = 'This call takes no payload.';

/**
 * Builds the handlers. Backups, restores and moves of the data directory are one at a time: a
 * second while one runs is refused.
 */
export function createIpcHandlers(deps: IpcDeps): IpcHandlers {
  let busy: string | null = null;

  /** Throws unless the sender is the app. */
  const check = (channel: InvokeChannel, sender: Sender): void => {
    const reason = senderRefusal(sender, deps.appOrigin());
    if (reason) throw new IpcSenderError(channel, reason);
  };

  /** Runs a data operation unless another one runs. */
  const exclusive = async <T>(what: string, work: () => Promise<Outcome<T>>): Promise<Outcome<T>> => {
    if (busy) return { ok: false, error: `Please wait: ${busy} is still in progress.` };
    busy = what;
    try {
      return await work();
    } finally {
      busy = null;
    }
  };

  const progress = (operation: DataProgress['operation']) => (update: ProgressUpdate) => {
    const fraction = Number.isFinite(update.fraction) ? Math.min(1, Math.max(0, update.fraction)) : 0;
    deps.emit('progress', { operation, fraction, stage: update.stage });
  };

  const handlers: IpcHandlers = {
    'settings:get': async (sender, payload) => {
      check('settings:get', sender);
      if (!isEmpty(payload)) throw new IpcPayloadError(NO_PAYLOAD);
      return deps.settings.get();
    },

    'settings:set': async (sender, payload) => {
      check('settings:set', sender);
      const changed = deps.settings.change(payload);
      if (!changed.ok) return changed;
      const { before, after } = changed.value;
      if (before.startAtLogin !== after.startAtLogin) {
        try {
          await deps.setLoginItem(after.startAtLogin);
        } catch (error) {
          // The system refused: the setting goes back, so it says what the system does.
          deps.settings.change({ startAtLogin: before.startAtLogin });
          return failure('Hearth could not change whether it opens at login', error);
        }
      }
      deps.settingsChanged?.(after, before);
      return { ok: true, value: after };
    },

    'info:get': async (sender, payload) => {
      check('info:get', sender);
      if (!isEmpty(payload)) throw new IpcPayloadError(NO_PAYLOAD);
      const info = await deps.hostInfo();
      const plan = info.caFile ? certificateTrustPlan(info.caFile, deps.trustEnvironment) : null;
      return {
        ...info,
        canTrustCertificate: plan?.kind === 'command',
        certificateHelp: plan?.kind === 'manual' ? plan.instructions : null,
      };
    },

    'data-dir:choose': async (sender, payload) => {
      check('data-dir:choose', sender);
      if (!isEmpty(payload)) return { ok: false, error: NO_PAYLOAD };
      return exclusive('moving the data', async () => {
        const dir = await deps.chooseFolder();
        if (dir === null) return { ok: true, value: null };
        const problem = await dataDirProblem(dir);
        if (problem) return { ok: false, error: problem };
        const before = deps.settings.get();
        if (before.dataDir === dir) return { ok: true, value: dir };
        const saved = deps.settings.setDataDir(dir);
        if (!saved.ok) return saved;
        try {
          await deps.restartServer();
        } catch (error) {
          // Back to the directory that worked, and the server on it again.
          deps.settings.setDataDir(before.dataDir);
          await deps.restartServer().catch(() => undefined);
          return failure('Hearth could not start on that folder, so it stays where it was', error);
        }
        deps.settingsChanged?.(deps.settings.get(), before);
        return { ok: true, value: dir };
      });
    },

    'certificate:trust': async (sender, payload) => {
      check('certificate:trust', sender);
      if (!isEmpty(payload)) return { ok: false, error: NO_PAYLOAD };
      const info = await deps.hostInfo();
      if (!info.caFile) return { ok: false, error: 'This instance has no local HTTPS address, so there is no certificate to trust.' };
      try {
        return await trustCertificate(info.caFile, deps.trustEnvironment, deps.runCommand);
      } catch (error) {
        return failure('The certificate was not trusted', error);
      }
    },

    'backup:create': async (sender, payload) => {
      check('backup:create', sender);
      if (!isEmpty(payload)) return { ok: false, error: NO_PAYLOAD };
      return exclusive('a backup', async () => {
        const day = (deps.now?.() ?? new Date()).toISOString().slice(0, 10);
        const target = await deps.chooseBackupTarget(`hearth-backup-${day}.tar.gz`);
        if (target === null) return { ok: true, value: null };
        try {
          await deps.backup(target, progress('backup'));
        } catch (error) {
          return failure('The backup was not made', error);
        }
        return { ok: true, value: target };
      });
    },

    'backup:restore': async (sender, payload) => {
      check('backup:restore', sender);
      if (!isEmpty(payload)) return { ok: false, error: NO_PAYLOAD };
      return exclusive('a restore', async () => {
        const source = await deps.chooseBackupSource();
        if (source === null) return { ok: true, value: null };
        try {
          await deps.restore(source, progress('restore'));
        } catch (error) {
          return failure('The backup was not restored', error);
        }
        return { ok: true, value: source };
      });
    },

    'log:open': async (sender, payload) => {
      check('log:open', sender);
      if (!isEmpty(payload)) return { ok: false, error: NO_PAYLOAD };
      try {
        await deps.openLog();
      } catch (error) {
        return failure('The log could not be opened', error);
      }
      return { ok: true, value: null };
    },
  };

  // Every channel of the contract has its handler (a channel added there without one fails here).
  for (const channel of INVOKE_CHANNELS) if (typeof handlers[channel] !== 'function') throw new Error(`No handler for ${channel}`);
  return handlers;
}
