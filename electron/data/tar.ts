/**
 * A small ustar (POSIX.1-1988 tar) writer and streaming reader, enough for Hearth's backup archive:
 * regular files with a mode, a size and a modification time, long names through a PAX extended
 * header ('x'), sizes past 8 GiB through the same. The reader checks every header's checksum and
 * magic, and insists on the end-of-archive marker (two zero blocks), so a truncated archive is told
 * apart from a whole one. What an entry may be called or be (links, devices) is the caller's
 * decision: the reader reports the type flag and the path as written.
 */

const BLOCK = 512;
/** The largest size the 11 octal digits of a ustar header hold (8 GiB − 1). */
const MAX_OCTAL_SIZE = 8 ** 11 - 1;
/** A PAX extended header is a few names and numbers; anything bigger is not one we wrote. */
const MAX_PAX_BYTES = 64 * 1024;

/** A malformed or truncated tar stream. */
export class TarError extends Error {
  constructor(
    message: string,
    /** Whether the stream ended early (a truncated archive) rather than holding bad bytes. */
    readonly truncated = false,
  ) {
    super(message);
    this.name = 'TarError';
  }
}

/** One entry's header, as the reader hands it over. */
export interface TarEntryHeader {
  /** The path as written in the archive (PAX `path` wins over ustar prefix and name). */
  path: string;
  /** `file` for type flags '0' and NUL, `directory` for '5', else `other` (see `typeflag`). */
  type: 'file' | 'directory' | 'other';
  typeflag: string;
  size: number;
  mode: number;
  /** Seconds since the epoch. */
  mtime: number;
}

/** Where the reader sends an entry's bytes; `write` is awaited, so a slow sink slows the reading. */
export interface TarEntrySink {
  write(chunk: Buffer): void | Promise<void>;
  end(): void | Promise<void>;
}

/** A sink that throws the bytes away (to skip an entry). */
export const DISCARD: TarEntrySink = { write() {}, end() {} };

/** The zero padding after `size` bytes of content, up to the next 512-byte block. */
export function tarPadding(size: number): Buffer {
  const rest = size % BLOCK;
  return Buffer.alloc(rest === 0 ? 0 : BLOCK - rest);
}

/** The end-of-archive marker: two zero blocks. */
export function tarEnd(): Buffer {
  return Buffer.alloc(2 * BLOCK);
}

function writeString(block: Buffer, offset: number, length: number, value: string): void {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > length) throw new TarError(`tar field too long: ${value}`);
  bytes.copy(block, offset);
}

function writeOctal(block: Buffer, offset: number, length: number, value: number): void {
  // length − 1 digits, then a NUL.
  const text = Math.floor(value).toString(8).padStart(length - 1, '0');
  if (text.length > length - 1) throw new TarError(`tar number too large: ${value}`);
  block.write(`${text}\0`, offset, 'ascii');
}

/** One PAX record: `<length> <key>=<value>\n`, where the length counts itself. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  const bodyLength = Buffer.byteLength(body);
  let digits = String(bodyLength).length;
  if (String(bodyLength + digits).length > digits) digits += 1;
  return `${bodyLength + digits}${body}`;
}

/** Splits a long path into ustar's prefix (≤ 155 bytes) and name (≤ 100 bytes), if it can be. */
function splitUstarPath(path: string): { prefix: string; name: string } | null {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  for (let i = path.indexOf('/'); i >= 0; i = path.indexOf('/', i + 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name !== '') return { prefix, name };
  }
  return null;
}

function headerBlock(name: string, prefix: string, size: number, mode: number, mtime: number, typeflag: string): Buffer {
  const block = Buffer.alloc(BLOCK);
  writeString(block, 0, 100, name);
  writeOctal(block, 100, 8, mode & 0o7777);
  writeOctal(block, 108, 8, 0);
  writeOctal(block, 116, 8, 0);
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, mtime);
  block.write(typeflag, 156, 'ascii');
  block.write('ustar\0', 257, 'ascii');
  block.write('00', 263, 'ascii');
  writeString(block, 345, 155, prefix);
  // The checksum is computed with its own field as eight spaces.
  block.fill(0x20, 148, 156);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'ascii');
  return block;
}

/**
 * The header of one entry (a regular file unless `typeflag` says otherwise), preceded by a PAX
 * extended header when the path does not fit ustar's fields or the size passes 8 GiB. The caller
 * then writes `size` bytes of content and `tarPadding(size)`.
 */
export function tarHeader(entry: { path: string; size: number; mode?: number; mtime?: number; typeflag?: string }): Buffer {
  const mode = entry.mode ?? 0o600;
  const mtime = Math.max(0, Math.floor(entry.mtime ?? Date.now() / 1000));
  const typeflag = entry.typeflag ?? '0';
  const split = splitUstarPath(entry.path);
  const records: string[] = [];
  if (!split) records.push(paxRecord('path', entry.path));
  if (entry.size > MAX_OCTAL_SIZE) records.push(paxRecord('size', String(entry.size)));
  const main = headerBlock(split?.name ?? 'long-name', split?.prefix ?? '', entry.size > MAX_OCTAL_SIZE ? 0 : entry.size, mode, mtime, typeflag);
  if (records.length === 0) return main;
  const pax = Buffer.from(records.join(''), 'utf8');
  return Buffer.concat([headerBlock('PaxHeader', '', pax.length, 0o644, mtime, 'x'), pax, tarPadding(pax.length), main]);
}

function readString(block: Buffer, offset: number, length: number): string {
  const field = block.subarray(offset, offset + length);
  const end = field.indexOf(0);
  return field.subarray(0, end < 0 ? length : end).toString('utf8');
}

function readOctal(block: Buffer, offset: number, length: number, what: string): number {
  const text = block.toString('ascii', offset, offset + length).replace(/[\0 ]+$/, '').replace(/^ +/, '');
  if (!/^[0-7]*$/.test(text)) throw new TarError(`damaged tar header (its ${what} is not a number)`);
  return text === '' ? 0 : parseInt(text, 8);
}

function isZeroBlock(block: Buffer): boolean {
  for (const byte of block) if (byte !== 0) return false;
  return true;
}

function parsePax(data: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  let offset = 0;
  while (offset < data.length) {
    const space = data.indexOf(0x20, offset);
    if (space < 0) throw new TarError('damaged PAX header');
    const length = Number(data.toString('ascii', offset, space));
    if (!Number.isInteger(length) || length <= space - offset + 1 || offset + length > data.length) throw new TarError('damaged PAX header');
    const record = data.toString('utf8', space + 1, offset + length - 1);
    const eq = record.indexOf('=');
    if (eq <= 0 || data[offset + length - 1] !== 0x0a) throw new TarError('damaged PAX header');
    out.set(record.slice(0, eq), record.slice(eq + 1));
    offset += length;
  }
  return out;
}

/** Parses one header block (checksum and magic checked); PAX values, if any, override. */
function parseHeader(block: Buffer, pax: Map<string, string> | null): TarEntryHeader {
  const stored = readOctal(block, 148, 8, 'checksum');
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : (block[i] as number);
  if (sum !== stored) throw new TarError('damaged tar header (checksum mismatch)');
  if (block.toString('ascii', 257, 262) !== 'ustar') throw new TarError('not a ustar archive');
  // Base-256 sizes (GNU) are not something we write; refuse rather than misread them.
  if (((block[124] as number) & 0x80) !== 0) throw new TarError('unsupported tar size encoding');
  const flagByte = block[156] as number;
  const typeflag = flagByte === 0 ? '\0' : String.fromCharCode(flagByte);
  const name = readString(block, 0, 100);
  const prefix = readString(block, 345, 155);
  let path = prefix ? `${prefix}/${name}` : name;
  let size = readOctal(block, 124, 12, 'size');
  const paxPath = pax?.get('path');
  if (paxPath !== undefined) path = paxPath;
  const paxSize = pax?.get('size');
  if (paxSize !== undefined) {
    if (!/^[0-9]{1,16}$/.test(paxSize)) throw new TarError('damaged PAX header (size)');
    size = Number(paxSize);
  }
  const type = typeflag === '0' || typeflag === '\0' ? 'file' : typeflag === '5' ? 'directory' : 'other';
  return { path, type, typeflag, size, mode: readOctal(block, 100, 8, 'mode'), mtime: readOctal(block, 136, 12, 'mtime') };
}

/**
 * Reads a tar stream: for each entry, asks `onEntry` where its bytes go and streams them there.
 * PAX extended headers ('x') are applied to the entry after them; global ones ('g') are refused.
 * Ends after the end-of-archive marker; a stream that ends before it is a truncated archive
 * (`TarError` with `truncated`), and bytes after it other than zero padding are an error.
 */
export async function readTar(source: AsyncIterable<Buffer>, onEntry: (header: TarEntryHeader) => TarEntrySink | Promise<TarEntrySink>): Promise<void> {
  // One mutable record (not loose variables): the steps below change it from helper functions.
  const st: {
    state: 'header' | 'body' | 'padding' | 'end';
    remaining: number;
    padding: number;
    zeroBlocks: number;
    sink: TarEntrySink;
    /** The body of a PAX header being read, or null for an ordinary entry. */
    paxParts: Buffer[] | null;
    /** The PAX values for the next entry. */
    pax: Map<string, string> | null;
  } = { state: 'header', remaining: 0, padding: 0, zeroBlocks: 0, sink: DISCARD, paxParts: null, pax: null };

  const finishBody = async () => {
    if (st.paxParts) {
      st.pax = parsePax(Buffer.concat(st.paxParts));
      st.paxParts = null;
    } else {
      await st.sink.end();
    }
    st.state = st.padding > 0 ? 'padding' : 'header';
  };

  let carry: Buffer = Buffer.alloc(0);
  for await (const chunk of source) {
    const data: Buffer = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk;
    carry = Buffer.alloc(0);
    let offset = 0;
    while (offset < data.length) {
      if (st.state === 'body') {
        const n = Math.min(st.remaining, data.length - offset);
        const piece = data.subarray(offset, offset + n);
        if (st.paxParts) st.paxParts.push(Buffer.from(piece));
        else await st.sink.write(piece);
        offset += n;
        st.remaining -= n;
        if (st.remaining === 0) await finishBody();
        continue;
      }
      if (st.state === 'padding') {
        const n = Math.min(st.padding, data.length - offset);
        offset += n;
        st.padding -= n;
        if (st.padding === 0) st.state = 'header';
        continue;
      }
      if (st.state === 'end') {
        // Writers pad the archive to a record size with zeros; anything else does not belong.
        for (let i = offset; i < data.length; i++) if (data[i] !== 0) throw new TarError('data after the end of the archive');
        offset = data.length;
        continue;
      }
      if (data.length - offset < BLOCK) {
        carry = Buffer.from(data.subarray(offset));
        break;
      }
      const block = data.subarray(offset, offset + BLOCK);
      offset += BLOCK;
      if (isZeroBlock(block)) {
        st.zeroBlocks += 1;
        if (st.zeroBlocks === 2) st.state = 'end';
        continue;
      }
      if (st.zeroBlocks > 0) throw new TarError('damaged archive (a zero block between entries)');
      const header = parseHeader(block, st.pax);
      st.pax = null;
      st.remaining = header.size;
      st.padding = tarPadding(header.size).length;
      if (header.typeflag === 'x') {
        if (header.size > MAX_PAX_BYTES) throw new TarError('PAX header too large');
        st.paxParts = [];
      } else if (header.typeflag === 'g') {
        throw new TarError('global PAX headers are not supported');
      } else {
        st.sink = await onEntry(header);
      }
      if (st.remaining === 0) await finishBody();
      else st.state = 'body';
    }
  }
  if (st.state !== 'end') throw new TarError('the archive ends before its end marker', true);
}
