// Writes brotli (.br) and gzip (.gz) copies beside the app's text assets after `vite build`, so
// the server sends them compressed without compressing at run time (api/http/app-shell.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const out = process.env.HEARTH_RENDERER_OUT ?? fileURLToPath(new URL('../dist/renderer', import.meta.url));
const assets = join(out, 'assets');
for (const name of readdirSync(assets)) {
  if (!/\.(js|css|svg|json)$/.test(name)) continue;
  const raw = readFileSync(join(assets, name));
  writeFileSync(join(assets, `${name}.br`), brotliCompressSync(raw, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(join(assets, `${name}.gz`), gzipSync(raw, { level: 9 }));
}
