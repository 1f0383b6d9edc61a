// `npm start` (after `npm run build`): opens the desktop app where Electron's binary is installed;
// where it is not (a machine that could not download it, or an install without devDependencies),
// says so in one line and runs the headless server (`hearth serve`, with the same arguments) with
// the app in the browser instead. Arguments after `npm start --` go to whichever runs.
//
// Environment: HEARTH_NO_BROWSER (set: never open a browser), and everything `hearth serve` reads
// (HEARTH_PORT, HEARTH_DATA, …).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
/** The compiled main process the app starts with (electron/main/main.ts). */
const MAIN = join(root, 'dist', 'electron', 'main', 'main.js');

/**
 * The Electron executable, or null when there is none. The `electron` package downloads its binary
 * the first time it is required and returns its path; it throws when the download fails (as on a
 * machine without network), and the path may name a file that is not there. It is asked in a child
 * process so that the download's own messages do not reach this output; a download that takes a
 * while gets a line of its own, so that the wait is explained (one that fails at once, none).
 */
function electronBinary() {
  return new Promise((resolve) => {
    const asked = spawn(process.execPath, ['-e', "process.stdout.write(require('electron'))"], { cwd: root, stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    asked.stdout.on('data', (chunk) => (out += chunk));
    const slow = setTimeout(() => console.log("Hearth: downloading Electron's binary for the desktop app (once; about 100 MB)…"), 5000);
    // A connection that hangs does not hold `npm start` for ever.
    const given = setTimeout(() => asked.kill('SIGKILL'), 10 * 60_000);
    asked.once('error', () => {});
    asked.once('close', (code) => {
      clearTimeout(slow);
      clearTimeout(given);
      // The package prints a line before downloading: the path is the last line.
      const path = code === 0 ? out.trim().split('\n').pop()?.trim() : null;
      resolve(path && existsSync(path) ? path : null);
    });
  });
}

/**
 * Asks the child to stop when this process is asked to (once, however many signals come: Ctrl-C
 * reaches npm, its shell and this process), and ends with the child's exit code once it has ended.
 * On POSIX the child runs in its own process group (see SPAWN), so it hears only this one request:
 * a second SIGINT would end `hearth serve` at once instead of gracefully. On Windows the console
 * tells every process of Ctrl-C itself, and a kill there would not be graceful, so nothing is passed.
 */
function follow(child) {
  let asked = false;
  const stop = () => {
    if (asked || process.platform === 'win32') return;
    asked = true;
    child.kill('SIGTERM');
  };
  // SIGHUP too (the terminal closed): the child, in its own group, would not hear of it.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, stop);
  child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  child.once('error', (err) => {
    console.error(`hearth: ${err.message}`);
    process.exit(1);
  });
}

/** How children are spawned: a process group of their own on POSIX (see follow). */
const SPAWN = { cwd: root, detached: process.platform !== 'win32' };

/** Whether there is a screen to show a browser on. */
function hasDisplay() {
  if (process.platform === 'darwin' || process.platform === 'win32') return true;
  return Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
}

/** Opens `url` in the default browser, if there is a screen and HEARTH_NO_BROWSER is not set; failing is fine. */
function openBrowser(url) {
  if (process.env.HEARTH_NO_BROWSER || !hasDisplay()) return;
  const [command, commandArgs] =
    process.platform === 'darwin' ? ['open', [url]] : process.platform === 'win32' ? ['cmd', ['/c', 'start', '""', `"${url}"`]] : ['xdg-open', [url]];
  try {
    const opener = spawn(command, commandArgs, { stdio: 'ignore', detached: true, windowsHide: true, windowsVerbatimArguments: true });
    opener.on('error', () => {});
    opener.unref();
  } catch {
    // No opener here: the URL is printed anyway.
  }
}

/** Runs `hearth serve` with the arguments given, its output passed through; opens the browser on its address. */
function serveHeadless() {
  const child = spawn(process.execPath, [join(root, 'bin', 'hearth.js'), 'serve', ...args], { ...SPAWN, stdio: ['ignore', 'pipe', 'inherit'] });
  let seen = '';
  let opened = false;
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (opened) return;
    seen += chunk;
    const url = /listening on (https?:\/\/\S+)/.exec(seen)?.[1];
    if (url) {
      opened = true;
      seen = '';
      // A server bound to every address is reached on this computer at 127.0.0.1.
      openBrowser(`${url.replace('0.0.0.0', '127.0.0.1')}/`);
    }
  });
  follow(child);
}

const electron = await electronBinary();
if (electron && existsSync(MAIN)) {
  // ELECTRON_RUN_AS_NODE would make the binary a plain Node (npm scripts run under Node).
  const env = { ...process.env };
  delete env.ELECTRON_RUN_AS_NODE;
  follow(spawn(electron, [MAIN, ...args], { ...SPAWN, env, stdio: ['ignore', 'inherit', 'inherit'] }));
} else if (electron) {
  console.log('Hearth: the desktop app is not built (dist/electron/main/main.js is missing), so this runs the headless server, with the app in your browser.');
  serveHeadless();
} else {
  console.log("Hearth: the desktop app's Electron binary is not installed here, so this runs the headless server, with the app in your browser.");
  serveHeadless();
}
