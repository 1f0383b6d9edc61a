import { open } from 'node:fs/promises';
import { emptyProbe, rational, type AvProbe } from './types.js';

/**
 * Reads MP4, MOV and M4A metadata from the `moov` box: duration, track kinds, picture size,
 * frame rate and the audio format. The media data (`mdat`) is skipped, never read.
 */

/** Largest `moov` box read into memory (a long video's sample tables stay well below). */
const MAX_MOOV_BYTES = 32 * 1024 * 1024;

interface Box {
  type: string;
  start: number;
  end: number;
  /** Where the payload begins. */
  body: number;
}

function* boxes(buf: Buffer, start: number, end: number): Generator<Box> {
  let pos = start;
  while (pos + 8 <= end) {
    let size = buf.readUInt32BE(pos);
    const type = buf.toString('latin1', pos + 4, pos + 8);
    let body = pos + 8;
    if (size === 1) {
      if (pos + 16 > end) return;
      size = Number(buf.readBigUInt64BE(pos + 8));
      body = pos + 16;
    } else if (size === 0) {
      size = end - pos;
    }
    if (size < body - pos || pos + size > end) return;
    yield { type, start: pos, end: pos + size, body };
    pos += size;
  }
}

function child(buf: Buffer, parent: Box, type: string): Box | undefined {
  for (const b of boxes(buf, parent.body, parent.end)) if (b.type === type) return b;
  return undefined;
}

function path(buf: Buffer, from: Box, ...types: string[]): Box | undefined {
  let box: Box | undefined = from;
  for (const t of types) {
    if (!box) return undefined;
    box = child(buf, box, t);
  }
  return box;
}

/** Finds the `moov` box among the top-level boxes of a file and reads it. */
async function readMoov(file: string): Promise<Buffer | null> {
  const handle = await open(file, 'r');
  try {
    const { size: fileSize } = await handle.stat();
    const header = Buffer.alloc(16);
    let pos = 0;
    while (pos + 8 <= fileSize) {
      const { bytesRead } = await handle.read(header, 0, 16, pos);
      if (bytesRead < 8) return null;
      let size = header.readUInt32BE(0);
      const type = header.toString('latin1', 4, 8);
      if (size === 1 && bytesRead >= 16) size = Number(header.readBigUInt64BE(8));
      else if (size === 0) size = fileSize - pos;
      if (size < 8) return null;
      if (type === 'moov') {
        if (size > MAX_MOOV_BYTES) return null;
        const moov = Buffer.alloc(size);
        const read = await handle.read(moov, 0, size, pos);
        return read.bytesRead === size ? moov : null;
      }
      pos += size;
    }
    return null;
  } finally {
    await handle.close();
  }
}

/** Timescale and duration of an `mvhd` or `mdhd` box (version 0 or 1). */
function timing(buf: Buffer, box: Box): { timescale: number; duration: number } {
  const version = buf[box.body] ?? 0;
  if (version === 1) return { timescale: buf.readUInt32BE(box.body + 20), duration: Number(buf.readBigUInt64BE(box.body + 24)) };
  return { timescale: buf.readUInt32BE(box.body + 12), duration: buf.readUInt32BE(box.body + 16) };
}

/** The picture size a `tkhd` box declares (16.16 fixed point), as displayed. */
function trackSize(buf: Buffer, box: Box): { width: number; height: number } {
  const version = buf[box.body] ?? 0;
  const matrix = box.body + (version === 1 ? 52 : 40);
  const at = matrix + 36;
  if (at + 8 > box.end) return { width: 0, height: 0 };
  const width = Math.round(buf.readUInt32BE(at) / 65536);
  const height = Math.round(buf.readUInt32BE(at + 4) / 65536);
  // A quarter-turn display matrix (phones filming upright) shows the picture with sides swapped.
  const a = buf.readInt32BE(matrix);
  const b = buf.readInt32BE(matrix + 4);
  return a === 0 && b !== 0 ? { width: height, height: width } : { width, height };
}

/** Sample count and total duration from `stts` (time-to-sample). */
function sampleTiming(buf: Buffer, box: Box): { count: number; total: number; single: number | null } {
  const entries = buf.readUInt32BE(box.body + 4);
  let count = 0;
  let total = 0;
  let single: number | null = null;
  for (let i = 0; i < entries; i++) {
    const at = box.body + 8 + i * 8;
    if (at + 8 > box.end) break;
    const n = buf.readUInt32BE(at);
    const delta = buf.readUInt32BE(at + 4);
    count += n;
    total += n * delta;
    single = i === 0 ? delta : null;
  }
  return { count, total, single };
}

function findChild(buf: Buffer, start: number, end: number, type: string): Box | undefined {
  for (const b of boxes(buf, start, end)) if (b.type === type) return b;
  return undefined;
}

/** An MPEG-4 descriptor's tag and payload bounds at `pos`. */
function descriptor(buf: Buffer, pos: number, end: number): { tag: number; body: number; end: number } | null {
  if (pos + 2 > end) return null;
  const tag = buf[pos] ?? 0;
  let length = 0;
  let i = pos + 1;
  for (let n = 0; n < 4 && i < end; n++, i++) {
    const byte = buf[i] ?? 0;
    length = (length << 7) | (byte & 0x7f);
    if ((byte & 0x80) === 0) {
      i++;
      break;
    }
  }
  return { tag, body: i, end: Math.min(end, i + length) };
}

/** The channel configuration of the AAC AudioSpecificConfig inside an `esds` box (0 when absent). */
function aacChannelConfig(buf: Buffer, esds: Box): number {
  // ES_Descriptor (3) → DecoderConfigDescriptor (4) → DecoderSpecificInfo (5).
  const es = descriptor(buf, esds.body + 4, esds.end);
  if (!es || es.tag !== 3) return 0;
  const flags = buf[es.body + 2] ?? 0;
  let pos = es.body + 3;
  if (flags & 0x80) pos += 2;
  if (flags & 0x40) pos += 1 + (buf[pos] ?? 0);
  if (flags & 0x20) pos += 2;
  const config = descriptor(buf, pos, es.end);
  if (!config || config.tag !== 4) return 0;
  const info = descriptor(buf, config.body + 13, config.end);
  if (!info || info.tag !== 5 || info.body + 2 > info.end) return 0;
  return ((buf[info.body + 1] ?? 0) >> 3) & 0x0f;
}

const AUDIO_CODECS: Record<string, string> = { mp4a: 'aac', 'ac-3': 'ac3', 'ec-3': 'eac3', Opus: 'opus', fLaC: 'flac', alac: 'alac', '.mp3': 'mp3' };

/** Probes an ISO base media file (MP4, MOV, M4A, 3GP). Null when it has no readable `moov`. */
export async function probeIsoBmff(file: string): Promise<AvProbe | null> {
  const moov = await readMoov(file);
  if (!moov) return null;
  const root: Box = { type: 'moov', start: 0, end: moov.length, body: 8 };
  const probe = emptyProbe();
  const mvhd = child(moov, root, 'mvhd');
  if (mvhd) {
    const t = timing(moov, mvhd);
    if (t.timescale > 0) probe.duration = t.duration / t.timescale;
  }
  for (const trak of boxes(moov, root.body, root.end)) {
    if (trak.type !== 'trak') continue;
    const hdlr = path(moov, trak, 'mdia', 'hdlr');
    const handler = hdlr ? moov.toString('latin1', hdlr.body + 8, hdlr.body + 12) : '';
    const mdhd = path(moov, trak, 'mdia', 'mdhd');
    const stbl = path(moov, trak, 'mdia', 'minf', 'stbl');
    if (handler === 'vide') {
      probe.hasVideo = true;
      const tkhd = child(moov, trak, 'tkhd');
      if (tkhd) {
        const size = trackSize(moov, tkhd);
        if (size.width > 0 && size.height > 0 && probe.width === null) {
          probe.width = size.width;
          probe.height = size.height;
        }
      }
      const stts = stbl ? child(moov, stbl, 'stts') : undefined;
      if (stts && mdhd && probe.frameRate === null) {
        const { timescale } = timing(moov, mdhd);
        const s = sampleTiming(moov, stts);
        // A constant frame duration gives an exact rate; otherwise the average over the track.
        probe.frameRate = s.single ? rational(timescale, s.single) : s.total > 0 ? rational(s.count * timescale, s.total) : null;
      }
    } else if (handler === 'soun') {
      probe.hasAudio = true;
      const stsd = stbl ? child(moov, stbl, 'stsd') : undefined;
      // The first sample entry follows the 8-byte stsd header; its audio fields are at fixed offsets.
      const entry = stsd ? stsd.body + 8 : -1;
      if (stsd && entry + 36 <= stsd.end && probe.audioCodec === null) {
        const format = moov.toString('latin1', entry + 4, entry + 8);
        probe.audioCodec = AUDIO_CODECS[format] ?? format.trim();
        probe.channels = moov.readUInt16BE(entry + 24);
        probe.sampleRate = moov.readUInt32BE(entry + 32) >>> 16;
        // Muxers write 2 channels in the entry whatever AAC carries; its decoder config knows.
        const esds = format === 'mp4a' ? findChild(moov, entry + 36, Math.min(stsd.end, entry + moov.readUInt32BE(entry)), 'esds') : undefined;
        const aacChannels = esds ? aacChannelConfig(moov, esds) : null;
        if (aacChannels) probe.channels = aacChannels;
      }
      if (probe.duration === null && mdhd) {
        const t = timing(moov, mdhd);
        if (t.timescale > 0) probe.duration = t.duration / t.timescale;
      }
    }
  }
  return probe;
}
