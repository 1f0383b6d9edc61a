import { createRequire } from 'node:module';
import type * as Http from 'node:http';
import type * as Https from 'node:https';

const require = createRequire(import.meta.url);

/**
 * `node:http`, loaded as CommonJS. Imported as an ES module, Node builds the module's namespace
 * from every export, and the `WebSocket`, `MessageEvent` and `CloseEvent` getters among them
 * load Node's whole fetch implementation (undici): about 14 MiB of resident memory that nothing
 * here uses. Import `http` from this module instead of `node:http` (types may still come from
 * `node:http` with `import type`).
 */
export const http: typeof Http = require('node:http') as typeof Http;

/** `node:https` (and TLS with it), loaded on first use: only outgoing fetches need it. */
export function https(): typeof Https {
  return require('node:https') as typeof Https;
}
