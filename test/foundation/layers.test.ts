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
    else if (name.endsWith('.ts') || name.endsWith('.tsx')) out.push(path);
  }
  return out;
}

/** Every module a file imports for its value (not `import type`), relative or bare, as written. */
function valueImportsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const statics = [...text.matchAll(/^\s*import\s+(?!type\b)[^'"]*?from\s*'([^']+)'/gm)].map((m) => m[1] as string);
  const bare = [...text.matchAll(/^\s*import\s*'([^']+)'/gm)].map((m) => m[1] as string);
  const dynamic = [...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1] as string);
  return [...statics, ...bare, ...dynamic];
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

  it('the app (renderer) reaches the server only over HTTP: no value imports of api/, relay/, electron/ or Node', () => {
    const offending = sources(join(root, 'renderer', 'src')).flatMap((file) =>
      valueImportsOf(file)
        .filter((spec) => {
          if (spec.startsWith('node:') || spec === 'electron') return true;
          if (!spec.startsWith('.')) return false;
          const target = relative(root, resolve(dirname(file), spec));
          return !target.startsWith('renderer/');
        })
        .map((spec) => `${relative(root, file)} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it('the instance and the relay never import Electron or the desktop shell', () => {
    const offending = [...sources(join(root, 'api')), ...sources(join(root, 'relay'))].flatMap((file) =>
      valueImportsOf(file)
        .filter((spec) => spec === 'electron' || spec.startsWith('electron-') || (spec.startsWith('.') && relative(root, resolve(dirname(file), spec)).startsWith('electron/')))
        .map((spec) => `${relative(root, file)} -> ${spec}`),
    );
    expect(offending).toEqual([]);
  });

  it('the desktop shell (electron/) starts the instance only through api/desktop.ts, and imports nothing of the app or the relay', () => {
    const offending = sources(join(root, 'electron')).flatMap((file) =>
      valueImportsOf(file)
        .filter((spec) => spec.startsWith('.'))
        .map((spec) => relative(root, resolve(dirname(file), spec)))
        .filter((target) => (target.startsWith('api/') && target !== 'api/desktop.js') || target.startsWith('renderer/') || target.startsWith('relay/'))
        .map((target) => `${relative(root, file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('only electron/main calls Electron itself; the rest of electron/ runs under plain Node', () => {
    const offending = sources(join(root, 'electron'))
      .filter((file) => !relative(root, file).startsWith('electron/main/') && !relative(root, file).startsWith('electron/preload/'))
      .flatMap((file) => valueImportsOf(file).filter((spec) => spec === 'electron' || spec === 'electron-store').map((spec) => `${relative(root, file)} -> ${spec}`));
    expect(offending).toEqual([]);
  });

  it('sees the imports it checks (the check itself works)', () => {
    expect(valueImportsOf(join(root, 'renderer/src/app.tsx'))).toContain('./instance/client');
    expect(valueImportsOf(join(root, 'renderer/src/routes.tsx'))).toContain('./screens/timelines/home');
    expect(importsOf(join(root, 'api/relay/index.ts'))).toContain('relay/protocol.js');
    expect(importsOf(join(root, 'relay/server.ts'))).toContain('relay/store/index.js');
    expect(valueImportsOf(join(root, 'electron/main/main.ts'))).toContain('electron');
    expect(valueImportsOf(join(root, 'electron/host/server-entry.ts')).some((spec) => spec.endsWith('api/desktop.js'))).toBe(true);
  });
});
