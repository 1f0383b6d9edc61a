import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Every relative module a file imports (static and dynamic), as paths from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specs = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((m) => m[1] as string);
  return specs.map((s) => relative(root, resolve(dirname(file), s)));
}

/** ARCHITECTURE.md, "Who may import whom", for the relay: it shares only its protocol module with the instance. */
describe('layers', () => {
  it('the instance imports nothing of the relay but relay/protocol', () => {
    const offending = sources(join(root, 'api')).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('relay/') && target !== 'relay/protocol.js')
        .map((target) => `${relative(root, file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('the relay imports nothing of the instance', () => {
    const offending = sources(join(root, 'relay')).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('api/') || target.startsWith('renderer/') || target.startsWith('electron/'))
        .map((target) => `${relative(root, file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('sees the imports it checks (the check itself works)', () => {
    expect(importsOf(join(root, 'api/relay/index.ts'))).toContain('relay/protocol.js');
    expect(importsOf(join(root, 'relay/server.ts'))).toContain('relay/store/index.js');
  });
});
