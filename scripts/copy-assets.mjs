// Copies the non-TypeScript files the server reads at run time (SQL migrations, static assets)
// next to the compiled JavaScript in dist/, keeping their relative paths.
import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const ASSET = /\.(sql|png|svg|ico|css|html|txt|json)$/;

function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (ASSET.test(name)) cpSync(path, join(root, 'dist', relative(root, path)));
  }
}

for (const top of ['api', 'relay']) if (existsSync(join(root, top))) walk(join(root, top));
