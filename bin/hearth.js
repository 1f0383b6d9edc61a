#!/usr/bin/env node
// The `hearth` command. Runs the compiled CLI (npm install builds it; `npm run build` rebuilds).
import { existsSync } from 'node:fs';

const cli = new URL('../dist/api/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('hearth: the server is not built yet; run `npm run build` in the checkout first');
  process.exit(1);
}
const { main } = await import(cli.href);
process.exitCode = await main(process.argv.slice(2));
