#!/usr/bin/env node
// The `hearth` command. Runs the compiled CLI (npm install builds it; `npm run build` rebuilds).
import { existsSync } from 'node:fs';
import v8 from 'node:v8';

// Start-up allocates in one burst (module code, validation schemas, migrations), and V8 would size
// its young generation for that burst and keep it: about 10 MiB more resident memory for an idle
// instance. So the young generation does not grow while starting; after that it grows again as
// load asks (2 is V8's default factor; the benchmarks show no change in throughput either way).
v8.setFlagsFromString('--semi-space-growth-factor=1');
setTimeout(() => v8.setFlagsFromString('--semi-space-growth-factor=2'), 5000).unref();

const args = process.argv.slice(2);
// `hearth relay …` runs the relay (a deployable of its own), but `relay status`, which reads an
// instance's data directory.
const relay = args[0] === 'relay' && args[1] !== 'status';
const cli = new URL(relay ? '../dist/relay/cli.js' : '../dist/api/cli.js', import.meta.url);
if (!existsSync(cli)) {
  console.error('hearth: the server is not built yet; run `npm run build` in the checkout first');
  process.exit(1);
}
if (relay) {
  const { relayMain } = await import(cli.href);
  process.exitCode = await relayMain(args.slice(1));
} else {
  const { main } = await import(cli.href);
  process.exitCode = await main(args);
}
