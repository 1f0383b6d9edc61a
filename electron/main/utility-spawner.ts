// The server host's spawner in the app: Electron's utilityProcess (a Node.js child with Chromium's
// service sandboxing off, the same Node as the main process, messages over a MessagePort).
import { utilityProcess } from 'electron';
import type { HostedChild, ProcessSpawner } from '../host/spawn.js';

/** Runs the server's entry in a utilityProcess, its output piped to the host's log. */
export const utilitySpawner: ProcessSpawner = {
  spawn({ entry, args, env }): HostedChild {
    const child = utilityProcess.fork(entry, args, { env, stdio: 'pipe', serviceName: 'Hearth server' });
    return {
      get pid() {
        return child.pid;
      },
      postMessage: (message) => child.postMessage(message),
      onMessage: (listener) => void child.on('message', listener),
      // utilityProcess reports an exit code only (a killed child has a non-zero one).
      onExit: (listener) => void child.once('exit', (code) => listener(code, null)),
      // utilityProcess.kill() sends SIGTERM, which the entry takes as a graceful stop. A child
      // stuck in synchronous work (a long migration) does not hear it: after its timeouts the
      // host asks for SIGKILL, which only the operating system can deliver.
      kill: (signal) => {
        if (signal === 'SIGKILL' && child.pid !== undefined) {
          try {
            process.kill(child.pid, 'SIGKILL');
            return;
          } catch {
            // Gone already, or not ours to signal: fall through to Electron's own kill.
          }
        }
        child.kill();
      },
      stdout: child.stdout,
      stderr: child.stderr,
    };
  },
};
