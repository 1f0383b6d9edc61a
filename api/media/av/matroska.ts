import { readBytes } from '../detect.js';
import { emptyProbe, rational, type AvProbe } from './types.js';

/**
 * Reads WebM metadata from the EBML elements before the first cluster: segment duration, track
 * kinds, picture size, frame duration and audio format.
 */

/** How much of the file is read: Info and Tracks come first in every muxer's output. */
const HEAD_BYTES = 1024 * 1024;

const ID = {
  segment: 0x18538067,
  info: 0x1549a966,
  timecodeScale: 0x2ad7b1,
  duration: 0x4489,
  tracks: 0x1654ae6b,
  trackEntry: 0xae,
  trackType: 0x83,
  codecId: 0x86,
  defaultDuration: 0x23e383,
  video: 0xe0,
  pixelWidth: 0xb0,
  pixelHeight: 0xba,
  audio: 0xe1,
  samplingFrequency: 0xb5,
  channels: 0x9f,
  cluster: 0x1f43b675,
} as const;

interface Element {
  id: number;
  body: number;
  /** End of the payload (the buffer's end for an unknown size). */
  end: number;
}

/** A variable-length integer at `pos`: its value (marker bit removed unless `keepMarker`) and length. */
function vint(buf: Buffer, pos: number, keepMarker: boolean): { value: number; length: number; unknown: boolean } | null {
  const first = buf[pos];
  if (first === undefined || first === 0) return null;
  let length = 1;
  while (length <= 8 && (first & (0x80 >> (length - 1))) === 0) length++;
  if (length > 8 || pos + length > buf.length) return null;
  let value = keepMarker ? first : first & (0xff >> length);
  let allOnes = value === 0xff >> length;
  for (let i = 1; i < length; i++) {
    const byte = buf[pos + i] ?? 0;
    value = value * 256 + byte;
    if (byte !== 0xff) allOnes = false;
  }
  return { value, length, unknown: !keepMarker && allOnes };
}

function* elements(buf: Buffer, start: number, end: number): Generator<Element> {
  let pos = start;
  while (pos < end) {
    const id = vint(buf, pos, true);
    if (!id || id.length > 4) return;
    const size = vint(buf, pos + id.length, false);
    if (!size) return;
    const body = pos + id.length + size.length;
    const stop = size.unknown ? end : Math.min(end, body + size.value);
    yield { id: id.value, body, end: stop };
    if (size.unknown) return;
    pos = body + size.value;
  }
}

function uint(buf: Buffer, e: Element): number {
  let v = 0;
  for (let i = e.body; i < e.end; i++) v = v * 256 + (buf[i] ?? 0);
  return v;
}

function float(buf: Buffer, e: Element): number | null {
  const len = e.end - e.body;
  if (len === 4) return buf.readFloatBE(e.body);
  if (len === 8) return buf.readDoubleBE(e.body);
  return null;
}

const AUDIO_CODECS: Record<string, string> = { A_OPUS: 'opus', A_VORBIS: 'vorbis', A_AAC: 'aac', A_FLAC: 'flac', A_MPEG_L3: 'mp3' };

function readTrack(buf: Buffer, entry: Element, probe: AvProbe): void {
  let type = 0;
  let codec = '';
  let frameNs = 0;
  let width = 0;
  let height = 0;
  let rate = 0;
  let channels = 0;
  for (const e of elements(buf, entry.body, entry.end)) {
    if (e.id === ID.trackType) type = uint(buf, e);
    else if (e.id === ID.codecId) codec = buf.toString('latin1', e.body, e.end).replace(/\0+$/, '');
    else if (e.id === ID.defaultDuration) frameNs = uint(buf, e);
    else if (e.id === ID.video) {
      for (const v of elements(buf, e.body, e.end)) {
        if (v.id === ID.pixelWidth) width = uint(buf, v);
        else if (v.id === ID.pixelHeight) height = uint(buf, v);
      }
    } else if (e.id === ID.audio) {
      for (const a of elements(buf, e.body, e.end)) {
        if (a.id === ID.samplingFrequency) rate = float(buf, a) ?? 0;
        else if (a.id === ID.channels) channels = uint(buf, a);
      }
    }
  }
  if (type === 1) {
    probe.hasVideo = true;
    if (probe.width === null && width > 0 && height > 0) {
      probe.width = width;
      probe.height = height;
    }
    if (probe.frameRate === null && frameNs > 0) probe.frameRate = rational(1e9, frameNs);
  } else if (type === 2) {
    probe.hasAudio = true;
    if (probe.audioCodec === null) {
      probe.audioCodec = AUDIO_CODECS[codec] ?? (codec.toLowerCase() || null);
      probe.sampleRate = rate > 0 ? Math.round(rate) : 8000;
      probe.channels = channels > 0 ? channels : 1;
    }
  }
}

/** Probes a WebM file. Null when no segment is found. */
export async function probeMatroska(file: string): Promise<AvProbe | null> {
  const buf = await readBytes(file, 0, HEAD_BYTES);
  let segment: Element | undefined;
  for (const e of elements(buf, 0, buf.length)) {
    if (e.id === ID.segment) {
      segment = e;
      break;
    }
  }
  if (!segment) return null;
  const probe = emptyProbe();
  let scale = 1_000_000;
  let rawDuration: number | null = null;
  for (const e of elements(buf, segment.body, segment.end)) {
    if (e.id === ID.cluster) break;
    if (e.id === ID.info) {
      for (const i of elements(buf, e.body, e.end)) {
        if (i.id === ID.timecodeScale) scale = uint(buf, i);
        else if (i.id === ID.duration) rawDuration = float(buf, i);
      }
    } else if (e.id === ID.tracks) {
      for (const t of elements(buf, e.body, e.end)) if (t.id === ID.trackEntry) readTrack(buf, t, probe);
    }
  }
  // Recorders that stream (MediaRecorder) leave the duration out.
  if (rawDuration !== null && rawDuration > 0) probe.duration = (rawDuration * scale) / 1e9;
  return probe;
}
