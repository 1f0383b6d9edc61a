import type { DetectedType } from '../detect.js';
import { probeAdts, probeFlac, probeMp3, probeOgg, probeWav } from './audio.js';
import { probeIsoBmff } from './isobmff.js';
import { probeMatroska } from './matroska.js';
import { rationalValue, type AvProbe } from './types.js';

export type { AvProbe } from './types.js';

/**
 * Reads the metadata of an audio or video file from its container, without decoding. Null when
 * the container cannot be read (a truncated or corrupt file).
 */
export async function probeAv(file: string, type: DetectedType): Promise<AvProbe | null> {
  try {
    switch (type.container) {
      case 'isobmff':
        return await probeIsoBmff(file);
      case 'webm':
        return await probeMatroska(file);
      case 'ogg':
        return await probeOgg(file);
      case 'mp3':
        return await probeMp3(file);
      case 'aac':
        return await probeAdts(file);
      case 'wav':
        return await probeWav(file);
      case 'flac':
        return await probeFlac(file);
      default:
        return null;
    }
  } catch {
    // Offsets beyond a truncated buffer: the file is not what its header promised.
    return null;
  }
}

/** Mastodon's `length` text: "H:MM:SS.cc". */
function lengthText(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds - h * 3600 - m * 60;
  return `${h}:${String(m).padStart(2, '0')}:${s.toFixed(2).padStart(5, '0')}`;
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * The `meta` object Mastodon gives video, gifv and audio attachments: top-level length, duration,
 * fps and picture size, audio details, and `original` with the exact values and the bit rate.
 */
export function avMeta(probe: AvProbe, fileSize: number): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  const original: Record<string, unknown> = {};
  if (probe.duration !== null) {
    meta.length = lengthText(probe.duration);
    meta.duration = round2(probe.duration);
    original.duration = Math.round(probe.duration * 1e6) / 1e6;
    if (probe.duration > 0) original.bitrate = Math.round((fileSize * 8) / probe.duration);
  }
  if (probe.hasVideo && probe.width !== null && probe.height !== null) {
    const fps = rationalValue(probe.frameRate);
    if (fps !== null) meta.fps = Math.round(fps);
    meta.size = `${probe.width}x${probe.height}`;
    meta.width = probe.width;
    meta.height = probe.height;
    meta.aspect = probe.width / probe.height;
    original.width = probe.width;
    original.height = probe.height;
    if (probe.frameRate) original.frame_rate = probe.frameRate;
  }
  if (probe.hasAudio) {
    if (probe.audioCodec) meta.audio_encode = probe.audioCodec;
    if (probe.sampleRate) meta.audio_bitrate = `${probe.sampleRate} Hz`;
    if (probe.channels) meta.audio_channels = probe.channels === 1 ? 'mono' : probe.channels === 2 ? 'stereo' : `${probe.channels} channels`;
  }
  meta.original = original;
  return meta;
}
