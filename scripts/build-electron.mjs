// Bundles the desktop window's preload (electron/preload/preload.ts, with the IPC contract it
// imports) into one CommonJS file, dist/electron/preload.cjs: a sandboxed preload can require
// nothing but 'electron', so everything else must be inside it.
import { build } from 'esbuild';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

await build({
  entryPoints: [join(root, 'electron', 'preload', 'preload.ts')],
  outfile: join(root, 'dist', 'electron', 'preload.cjs'),
  bundle: true,
  format: 'cjs',
  platform: 'node',
  target: 'node22',
  external: ['electron'],
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
