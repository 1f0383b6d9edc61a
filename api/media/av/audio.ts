import { stat } from 'node:fs/promises';
import { id3v2End, mp3Frame, readBytes } from '../detect.js';
import { emptyProbe, rational, type AvProbe } from './types.js';

/**
 * Metadata of the plain audio formats (and Ogg, which may carry Theora video): duration, sample
 * rate, channels and codec, read from headers and, where needed, the last page or an estimate
 * from the bit rate.
 */

function audioProbe(codec: string, sampleRate: number | null, channels: number | null, duration: number | null): AvProbe {
  return { ...emptyProbe(), hasAudio: true, audioCodec: codec, sampleRate, channels, duration };
}

/** WAV: the `fmt ` chunk and the size of the `data` chunk. */
export async function probeWav(file: string): Promise<AvProbe | null> {
  const buf = await readBytes(file, 0, 64 * 1024);
  let pos = 12;
  let channels: number | null = null;
  let rate: number | null = null;
  let byteRate = 0;
  while (pos + 8 <= buf.length) {
    const id = buf.toString('latin1', pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    if (id === 'fmt ' && pos + 24 <= buf.length) {
      channels = buf.readUInt16LE(pos + 10);
      rate = buf.readUInt32LE(pos + 12);
      byteRate = buf.readUInt32LE(pos + 16);
    } else if (id === 'data') {
      const { size: fileSize } = await stat(file);
      // Streamed WAVs write 0 or 0xffffffff as the data size: the rest of the file is data.
      const dataSize = size === 0 || size === 0xffffffff ? fileSize - pos - 8 : Math.min(size, fileSize - pos - 8);
      return audioProbe('pcm', rate, channels, byteRate > 0 ? dataSize / byteRate : null);
    }
    pos += 8 + size + (size % 2);
  }
  return rate === null ? null : audioProbe('pcm', rate, channels, null);
}

/** FLAC: the STREAMINFO block (sample rate, channels, total samples). */
export async function probeFlac(file: string): Promise<AvProbe | null> {
  const head = await readBytes(file, 0, 64 * 1024);
  const start = head.toString('latin1', 0, 4) === 'fLaC' ? 0 : id3v2End(head);
  const buf = start === 0 ? head : await readBytes(file, start, 64);
  // "fLaC", then the STREAMINFO block header (4 bytes), then its 34-byte body.
  const info = 8;
  if (buf.length < info + 18) return null;
  const rate = (buf.readUInt16BE(info + 10) << 4) | ((buf[info + 12] ?? 0) >> 4);
  const channels = (((buf[info + 12] ?? 0) >> 1) & 0x07) + 1;
  const total = ((buf[info + 13] ?? 0) & 0x0f) * 2 ** 32 + buf.readUInt32BE(info + 14);
  return audioProbe('flac', rate, channels, rate > 0 && total > 0 ? total / rate : null);
}

/** MP3: the first frame, a Xing/Info or VBRI header when present, else a constant bit rate estimate. */
export async function probeMp3(file: string): Promise<AvProbe | null> {
  const head = await readBytes(file, 0, 16);
  const start = id3v2End(head);
  const buf = await readBytes(file, start, 8192);
  let i = 0;
  while (i + 4 <= buf.length && !(buf[i] === 0xff && ((buf[i + 1] ?? 0) & 0xe0) === 0xe0)) i++;
  if (i + 4 > buf.length) return null;
  const frame = mp3Frame(buf, i);
  const { size: fileSize } = await stat(file);
  let duration: number | null = null;
  const version1 = (((buf[i + 1] ?? 0) >> 3) & 0x03) === 3;
  const xingAt = i + 4 + (version1 ? (frame.channels === 1 ? 17 : 32) : frame.channels === 1 ? 9 : 17);
  const tag = buf.toString('latin1', xingAt, xingAt + 4);
  if ((tag === 'Xing' || tag === 'Info') && ((buf[xingAt + 7] ?? 0) & 0x01) !== 0) {
    duration = (buf.readUInt32BE(xingAt + 8) * frame.samples) / frame.sampleRate;
  } else if (buf.toString('latin1', i + 36, i + 40) === 'VBRI') {
    duration = (buf.readUInt32BE(i + 36 + 14) * frame.samples) / frame.sampleRate;
  } else if (frame.bitrate > 0) {
    duration = ((fileSize - start - i) * 8) / frame.bitrate;
  }
  return audioProbe('mp3', frame.sampleRate, frame.channels, duration);
}

const ADTS_RATES = [96000, 88200, 64000, 48000, 44100, 32000, 24000, 22050, 16000, 12000, 11025, 8000, 7350];

/** AAC in ADTS frames: the rate from the first header, the duration estimated from the mean frame size. */
export async function probeAdts(file: string): Promise<AvProbe | null> {
  const buf = await readBytes(file, 0, 256 * 1024);
  const { size: fileSize } = await stat(file);
  const rate = ADTS_RATES[((buf[2] ?? 0) >> 2) & 0x0f] ?? null;
  const channels = (((buf[2] ?? 0) & 0x01) << 2) | ((buf[3] ?? 0) >> 6);
  let pos = 0;
  let frames = 0;
  while (pos + 7 <= buf.length && buf[pos] === 0xff && ((buf[pos + 1] ?? 0) & 0xf6) === 0xf0) {
    const length = (((buf[pos + 3] ?? 0) & 0x03) << 11) | ((buf[pos + 4] ?? 0) << 3) | ((buf[pos + 5] ?? 0) >> 5);
    if (length < 7) break;
    pos += length;
    frames++;
  }
  // Each ADTS frame holds 1024 samples.
  const duration = rate && frames > 0 ? ((fileSize / (pos / frames)) * 1024) / rate : null;
  return audioProbe('aac', rate, channels || null, duration);
}

/** Ogg: the identification header of the first stream and the granule position of the last page. */
export async function probeOgg(file: string): Promise<AvProbe | null> {
  const head = await readBytes(file, 0, 4096);
  const segments = head[26] ?? 0;
  const packet = 27 + segments;
  const { size: fileSize } = await stat(file);
  const tailStart = Math.max(0, fileSize - 65536);
  const tail = await readBytes(file, tailStart, 65536);
  const last = tail.lastIndexOf('OggS');
  const granule = last >= 0 && last + 14 <= tail.length ? Number(tail.readBigUInt64LE(last + 6)) : null;
  const kind = head.toString('latin1', packet + 1, packet + 7);
  if (kind === 'vorbis') {
    const channels = head[packet + 11] ?? null;
    const rate = head.readUInt32LE(packet + 12);
    return audioProbe('vorbis', rate, channels, granule !== null && rate > 0 ? granule / rate : null);
  }
  if (head.toString('latin1', packet, packet + 8) === 'OpusHead') {
    const channels = head[packet + 9] ?? null;
    const preSkip = head.readUInt16LE(packet + 10);
    // Opus granules always count 48 kHz samples, whatever the input rate was.
    return audioProbe('opus', 48000, channels, granule !== null ? Math.max(0, granule - preSkip) / 48000 : null);
  }
  if (head.toString('latin1', packet + 1, packet + 5) === 'FLAC') {
    const info = packet + 13;
    const rate = (head.readUInt16BE(info + 10) << 4) | ((head[info + 12] ?? 0) >> 4);
    const channels = (((head[info + 12] ?? 0) >> 1) & 0x07) + 1;
    return audioProbe('flac', rate, channels, granule !== null && rate > 0 ? granule / rate : null);
  }
  if (kind === 'theora') {
    const t = packet + 7;
    const probe = emptyProbe();
    probe.hasVideo = true;
    probe.width = head.readUIntBE(t + 7, 3);
    probe.height = head.readUIntBE(t + 10, 3);
    const num = head.readUInt32BE(t + 15);
    const den = head.readUInt32BE(t + 19);
    probe.frameRate = rational(num, den);
    // The granule of a Theora stream encodes frame numbers; the count is enough for a duration.
    const shift = ((head[t + 33] ?? 0) & 0x03) << 3 | ((head[t + 34] ?? 0) >> 5);
    if (granule !== null && num > 0 && den > 0) {
      const frames = Math.floor(granule / 2 ** shift) + (granule % 2 ** shift);
      probe.duration = (frames * den) / num;
    }
    return probe;
  }
  return null;
}
