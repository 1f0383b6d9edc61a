import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { readTar, tarEnd, tarHeader, tarPadding } from '../../electron/data/tar.js';
import type { DataProgressUpdate } from '../../electron/data/progress.js';
import type { Manifest } from '../../electron/data/manifest.js';

/** One entry of a (small) archive, held in memory. */
export interface Entry {
  path: string;
  data: Buffer;
  typeflag?: string;
  mode?: number;
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Every entry of a small gzip-compressed tar, read with the module's own reader. */
export async function readEntries(file: string): Promise<Entry[]> {
  const out: Entry[] = [];
  async function* one() {
    yield gunzipSync(readFileSync(file));
  }
  await readTar(one(), (header) => {
    const parts: Buffer[] = [];
    return {
      write: (chunk) => void parts.push(Buffer.from(chunk)),
      end: () => void out.push({ path: header.path, data: Buffer.concat(parts), typeflag: header.typeflag, mode: header.mode }),
    };
  });
  return out;
}

/** Writes entries as a gzip-compressed tar, as they are (any name, any type: for bad archives). */
export function writeEntries(file: string, entries: readonly Entry[]): void {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(tarHeader({ path: e.path, size: e.data.length, mode: e.mode ?? 0o600, typeflag: e.typeflag ?? '0' }), e.data, tarPadding(e.data.length));
  }
  parts.push(tarEnd());
  writeFileSync(file, gzipSync(Buffer.concat(parts)));
}

/** The manifest entry's content. */
export function manifestOf(entries: readonly Entry[]): Manifest {
  const m = entries.find((e) => e.path === 'manifest.json');
  if (!m) throw new Error('no manifest');
  return JSON.parse(m.data.toString('utf8')) as Manifest;
}

/**
 * The entries with the manifest made to match them again (every file but the manifest listed with
 * its size and hash; `change` may edit the rest), so that a test's archive fails only for the
 * reason it is about.
 */
export function withMatchingManifest(entries: readonly Entry[], change: (m: Manifest) => void = () => {}): Entry[] {
  const manifest = manifestOf(entries);
  const files = entries.filter((e) => e.path !== 'manifest.json');
  manifest.files = files.map((e) => ({ path: e.path, size: e.data.length, sha256: sha256(e.data) }));
  change(manifest);
  return [...files, { path: 'manifest.json', data: Buffer.from(JSON.stringify(manifest)) }];
}

/** Every file, folder and link under a directory, with file hashes: to compare before and after. */
export function snapshotDir(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const abs = rel ? join(dir, rel) : dir;
    for (const name of readdirSync(abs).sort()) {
      const path = rel ? `${rel}/${name}` : name;
      const info = lstatSync(join(abs, name));
      if (info.isSymbolicLink()) out[path] = `link:${readlinkSync(join(abs, name))}`;
      else if (info.isDirectory()) {
        out[path] = 'dir';
        walk(path);
      } else out[path] = `${info.size}:${sha256(readFileSync(join(abs, name)))}`;
    }
  };
  walk('');
  return out;
}

/** Checks that progress never went back and ended at 1 with `done`. */
export function expectMonotonicToOne(updates: readonly DataProgressUpdate[]): void {
  expect(updates.length).toBeGreaterThan(2);
  for (let i = 1; i < updates.length; i++) expect(updates[i]!.fraction).toBeGreaterThanOrEqual(updates[i - 1]!.fraction);
  expect(updates[0]!.fraction).toBeGreaterThanOrEqual(0);
  expect(updates.at(-1)).toEqual({ fraction: 1, stage: 'done' });
  expect(updates.slice(0, -1).every((u) => u.fraction < 1)).toBe(true);
}
