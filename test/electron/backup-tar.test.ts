import { describe, expect, it } from 'vitest';
import { readTar, tarEnd, tarHeader, tarPadding, TarError, type TarEntryHeader } from '../../electron/data/tar.js';

/** Reads a tar held in memory, in chunks of `chunk` bytes (so headers and bodies straddle them). */
async function read(tar: Buffer, chunk = 100): Promise<{ header: TarEntryHeader; data: Buffer }[]> {
  const out: { header: TarEntryHeader; data: Buffer }[] = [];
  async function* pieces() {
    for (let i = 0; i < tar.length; i += chunk) yield tar.subarray(i, i + chunk);
  }
  await readTar(pieces(), (header) => {
    const parts: Buffer[] = [];
    return { write: (c) => void parts.push(Buffer.from(c)), end: () => void out.push({ header, data: Buffer.concat(parts) }) };
  });
  return out;
}

const entry = (path: string, data: Buffer) => [tarHeader({ path, size: data.length, mode: 0o640, mtime: 1_700_000_000 }), data, tarPadding(data.length)];

describe('the backup archive’s tar format', () => {
  it('writes and reads back short names, names split into ustar’s prefix, and long names through PAX', async () => {
    const split = `media/${'a'.repeat(90)}/${'b'.repeat(90)}.png`;
    const long = `media/${Array.from({ length: 30 }, (_, i) => `segment${i}`).join('/')}/file.png`;
    expect(long.length).toBeGreaterThan(255);
    const tar = Buffer.concat([...entry('hearth.json', Buffer.from('{}')), ...entry(split, Buffer.alloc(513, 1)), ...entry(long, Buffer.alloc(0)), tarEnd()]);
    const got = await read(tar, 77);
    expect(got.map((e) => [e.header.path, e.header.size, e.header.mode, e.header.mtime, e.header.type])).toEqual([
      ['hearth.json', 2, 0o640, 1_700_000_000, 'file'],
      [split, 513, 0o640, 1_700_000_000, 'file'],
      [long, 0, 0o640, 1_700_000_000, 'file'],
    ]);
    expect(got[1]?.data.equals(Buffer.alloc(513, 1))).toBe(true);
    // The PAX header is a separate entry in the stream but never reaches the caller.
    expect(tar.includes(Buffer.from('path='))).toBe(true);
  });

  it('tells a truncated archive, a damaged header and trailing data apart', async () => {
    const whole = Buffer.concat([...entry('hearth.json', Buffer.from('{"a":1}')), tarEnd()]);
    await expect(read(whole.subarray(0, 1024))).rejects.toMatchObject({ truncated: true });
    await expect(read(whole.subarray(0, 600))).rejects.toBeInstanceOf(TarError);
    const damaged = Buffer.from(whole);
    damaged[10] = 0x41;
    await expect(read(damaged)).rejects.toThrow(/checksum/);
    await expect(read(Buffer.concat([whole, Buffer.from('extra')]))).rejects.toThrow(/after the end/);
    await expect(read(Buffer.concat([whole, Buffer.alloc(4096)]))).resolves.toHaveLength(1);
  });
});
