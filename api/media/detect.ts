import { open } from 'node:fs/promises';

/**
 * File type detection from the bytes, never from the name or the type a client claims. Only the
 * formats the instance can store and serve are recognised; everything else is `null`.
 */

/** What kind of attachment a file can become. */
export type MediaKind = 'image' | 'video' | 'audio';

/** A recognised file: its kind, the MIME type it is served with and the extension of its key. */
export interface DetectedType {
  kind: MediaKind;
  mime: string;
  ext: string;
  /** The container, for the metadata readers. */
  container: 'jpeg' | 'png' | 'gif' | 'webp' | 'avif' | 'isobmff' | 'webm' | 'ogg' | 'mp3' | 'aac' | 'wav' | 'flac';
}

/** How many leading bytes detection looks at. */
export const SNIFF_BYTES = 4096;

const ascii = (buf: Buffer, start: number, end: number) => buf.toString('latin1', start, end);

// ISO BMFF brands: AVIF stills and sequences; audio-only MPEG-4 brands; QuickTime.
const AVIF_BRANDS = new Set(['avif', 'avis']);
const AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B ']);
const THREE_GP = /^3g[gp2]/;
// Top-level atoms an old QuickTime file may start with (no ftyp).
const QUICKTIME_FIRST_ATOMS = new Set(['moov', 'mdat', 'wide', 'free', 'skip', 'pnot']);

/** The brands of an ftyp box (major and compatible). */
function ftypBrands(buf: Buffer): string[] {
  const size = buf.readUInt32BE(0);
  const end = Math.min(size, buf.length);
  const brands = [ascii(buf, 8, 12)];
  for (let i = 16; i + 4 <= end; i += 4) brands.push(ascii(buf, i, i + 4));
  return brands;
}

function detectIsoBmff(buf: Buffer): DetectedType | null {
  const box = ascii(buf, 4, 8);
  if (box !== 'ftyp') {
    return QUICKTIME_FIRST_ATOMS.has(box) ? { kind: 'video', mime: 'video/quicktime', ext: 'mov', container: 'isobmff' } : null;
  }
  const brands = ftypBrands(buf);
  const major = brands[0] ?? '';
  if (AVIF_BRANDS.has(major) || (major === 'mif1' && brands.some((b) => AVIF_BRANDS.has(b)))) {
    return { kind: 'image', mime: 'image/avif', ext: 'avif', container: 'avif' };
  }
  // HEIC and other HEIF stills: the image library cannot decode HEVC, so they are refused.
  if (['heic', 'heix', 'hevc', 'heim', 'heis', 'hevm', 'hevs', 'mif1', 'msf1'].includes(major)) return null;
  if (AUDIO_BRANDS.has(major)) return { kind: 'audio', mime: 'audio/mp4', ext: 'm4a', container: 'isobmff' };
  if (THREE_GP.test(major)) return { kind: 'audio', mime: 'audio/3gpp', ext: '3gp', container: 'isobmff' };
  if (major === 'qt  ') return { kind: 'video', mime: 'video/quicktime', ext: 'mov', container: 'isobmff' };
  // Any other MPEG-4 brand (isom, mp41, mp42, avc1, dash, M4V…): the tracks decide video or audio.
  return { kind: 'video', mime: 'video/mp4', ext: 'mp4', container: 'isobmff' };
}

/** Reads an EBML DocType ("webm", "matroska") from the header of a Matroska file. */
function ebmlDocType(buf: Buffer): string | null {
  const i = buf.indexOf(Buffer.from([0x42, 0x82]), 4);
  if (i < 0 || i + 3 > buf.length) return null;
  const sizeByte = buf[i + 2] ?? 0;
  // One-byte length (0x80 | n) is what every muxer writes for the DocType.
  if ((sizeByte & 0x80) === 0) return null;
  const len = sizeByte & 0x7f;
  return ascii(buf, i + 3, Math.min(buf.length, i + 3 + len));
}

function detectOgg(buf: Buffer): DetectedType | null {
  // The first page holds the identification header of the first logical stream.
  const segments = buf[26] ?? 0;
  const start = 27 + segments;
  const head = buf.subarray(start, start + 8);
  if (head.subarray(1, 7).toString('latin1') === 'theora') return { kind: 'video', mime: 'video/ogg', ext: 'ogv', container: 'ogg' };
  if (head.subarray(1, 7).toString('latin1') === 'vorbis' || head.toString('latin1') === 'OpusHead' || head.subarray(1, 5).toString('latin1') === 'FLAC') {
    return { kind: 'audio', mime: 'audio/ogg', ext: 'ogg', container: 'ogg' };
  }
  return null;
}

/** An MPEG audio frame header at `i`: Layer III (MP3) or ADTS (AAC), or null. */
function mpegAudioAt(buf: Buffer, i: number): 'mp3' | 'aac' | null {
  const b0 = buf[i];
  const b1 = buf[i + 1];
  const b2 = buf[i + 2];
  if (b0 !== 0xff || b1 === undefined || b2 === undefined || (b1 & 0xe0) !== 0xe0) return null;
  const layer = (b1 >> 1) & 0x03;
  if (layer === 0) {
    // ADTS: MPEG version bit pattern 1111 x00x with a valid sampling index.
    return (b1 & 0xf6) === 0xf0 && ((b2 >> 2) & 0x0f) < 13 ? 'aac' : null;
  }
  const version = (b1 >> 3) & 0x03;
  const bitrate = (b2 >> 4) & 0x0f;
  const rate = (b2 >> 2) & 0x03;
  if (version === 1 || layer !== 1 || bitrate === 0 || bitrate === 15 || rate === 3) return null;
  return 'mp3';
}

/** Skips an ID3v2 tag, returning the offset of what follows it. */
export function id3v2End(buf: Buffer): number {
  if (ascii(buf, 0, 3) !== 'ID3' || buf.length < 10) return 0;
  const size = (((buf[6] ?? 0) & 0x7f) << 21) | (((buf[7] ?? 0) & 0x7f) << 14) | (((buf[8] ?? 0) & 0x7f) << 7) | ((buf[9] ?? 0) & 0x7f);
  const footer = ((buf[5] ?? 0) & 0x10) !== 0 ? 10 : 0;
  return 10 + size + footer;
}

/**
 * Detects the type of a file from its first bytes (`SNIFF_BYTES` are enough). `id3Skip`, when
 * given, is the first bytes after an ID3v2 tag, which can be longer than the sniffed head.
 */
export function detectType(head: Buffer, id3Skip?: Buffer): DetectedType | null {
  if (head.length < 12) return null;
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return { kind: 'image', mime: 'image/jpeg', ext: 'jpeg', container: 'jpeg' };
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) {
    return { kind: 'image', mime: 'image/png', ext: 'png', container: 'png' };
  }
  const six = ascii(head, 0, 6);
  if (six === 'GIF87a' || six === 'GIF89a') return { kind: 'image', mime: 'image/gif', ext: 'gif', container: 'gif' };
  const four = ascii(head, 0, 4);
  if (four === 'RIFF') {
    const form = ascii(head, 8, 12);
    if (form === 'WEBP') return { kind: 'image', mime: 'image/webp', ext: 'webp', container: 'webp' };
    if (form === 'WAVE') return { kind: 'audio', mime: 'audio/wav', ext: 'wav', container: 'wav' };
    return null;
  }
  if (ascii(head, 4, 8) === 'ftyp' || QUICKTIME_FIRST_ATOMS.has(ascii(head, 4, 8))) return detectIsoBmff(head);
  if (head.readUInt32BE(0) === 0x1a45dfa3) {
    const docType = ebmlDocType(head);
    return docType === 'webm' ? { kind: 'video', mime: 'video/webm', ext: 'webm', container: 'webm' } : null;
  }
  if (four === 'OggS') return detectOgg(head);
  if (four === 'fLaC') return { kind: 'audio', mime: 'audio/flac', ext: 'flac', container: 'flac' };
  const afterTag = ascii(head, 0, 3) === 'ID3' ? (id3Skip ?? head.subarray(id3v2End(head))) : head;
  if (ascii(afterTag, 0, 4) === 'fLaC') return { kind: 'audio', mime: 'audio/flac', ext: 'flac', container: 'flac' };
  const mpeg = mpegAudioAt(afterTag, 0);
  // One frame header can happen by chance; a tag in front of it is good enough evidence.
  if (mpeg === 'mp3' && (afterTag !== head || mpegAudioAt(afterTag, mp3FrameLength(afterTag, 0)) === 'mp3')) {
    return { kind: 'audio', mime: 'audio/mpeg', ext: 'mp3', container: 'mp3' };
  }
  if (mpeg === 'aac') return { kind: 'audio', mime: 'audio/aac', ext: 'aac', container: 'aac' };
  return null;
}

const MP3_BITRATES: Record<string, number[]> = {
  // kbit/s by index, MPEG-1 Layer III and MPEG-2/2.5 Layer III.
  v1: [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320],
  v2: [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160],
};
const MP3_RATES: Record<number, number[]> = { 3: [44100, 48000, 32000], 2: [22050, 24000, 16000], 0: [11025, 12000, 8000] };

/** The header fields of an MP3 frame at `i` (assumed valid). */
export function mp3Frame(buf: Buffer, i: number): { bitrate: number; sampleRate: number; channels: number; samples: number; length: number } {
  const b1 = buf[i + 1] ?? 0;
  const b2 = buf[i + 2] ?? 0;
  const b3 = buf[i + 3] ?? 0;
  const version = (b1 >> 3) & 0x03;
  const bitrate = (MP3_BITRATES[version === 3 ? 'v1' : 'v2']?.[(b2 >> 4) & 0x0f] ?? 0) * 1000;
  const sampleRate = MP3_RATES[version]?.[(b2 >> 2) & 0x03] ?? 44100;
  const padding = (b2 >> 1) & 0x01;
  const samples = version === 3 ? 1152 : 576;
  const length = Math.floor(((samples / 8) * bitrate) / sampleRate) + padding;
  return { bitrate, sampleRate, channels: (b3 >> 6) === 3 ? 1 : 2, samples, length };
}

function mp3FrameLength(buf: Buffer, i: number): number {
  return Math.max(1, mp3Frame(buf, i).length);
}

/** Reads up to `length` bytes at `position` of a file. */
export async function readBytes(path: string, position: number, length: number): Promise<Buffer> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buf, 0, length, position);
    return buf.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Detects the type of a file on disk. */
export async function detectFileType(path: string): Promise<DetectedType | null> {
  const head = await readBytes(path, 0, SNIFF_BYTES);
  if (ascii(head, 0, 3) === 'ID3') {
    const after = await readBytes(path, id3v2End(head), SNIFF_BYTES);
    return detectType(head, after);
  }
  return detectType(head);
}
