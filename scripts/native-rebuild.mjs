// Rebuilds better-sqlite3 for the Node that npm scripts run on (the pinned `node` package).
// npm compiles native addons with whichever Node runs npm itself (Node 20 on these machines) and
// against the headers in npm's `nodedir` setting; the project runs on Node 24, whose ABI differs.
// The pinned Node ships its own headers, so the addon is rebuilt against them, offline.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

// Checked in a child process: a failed dlopen is cached by the process that tried it.
function loads() {
  try {
    execFileSync(process.execPath, ['-e', "new (require('better-sqlite3'))(':memory:').close()"], { cwd: root, stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Finds the header directory shipped by the pinned `node` package for the running version. */
function headersDir() {
  const base = join(root, 'node_modules', 'node', 'node_modules');
  if (!existsSync(base)) return undefined;
  for (const name of readdirSync(base)) {
    const dir = join(base, name);
    if (name.startsWith('node-') && existsSync(join(dir, 'include', 'node', 'node.h'))) return dir;
  }
  return undefined;
}

if (loads()) {
  console.log(`better-sqlite3 loads on Node ${process.version}`);
} else {
  const nodedir = headersDir();
  if (!nodedir) {
    console.error(`better-sqlite3 does not load on Node ${process.version} and no headers were found`);
    process.exit(1);
  }
  console.log(`rebuilding better-sqlite3 for Node ${process.version} against ${nodedir}`);
  const npm = process.env.npm_execpath;
  const args = ['rebuild', 'better-sqlite3', `--nodedir=${nodedir}`];
  if (npm) execFileSync(process.execPath, [npm, ...args], { cwd: root, stdio: 'inherit' });
  else execFileSync('npm', args, { cwd: root, stdio: 'inherit' });
  if (!loads()) {
    console.error('better-sqlite3 still does not load after the rebuild');
    process.exit(1);
  }
}
