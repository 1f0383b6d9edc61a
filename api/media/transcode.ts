import { spawn } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { availableParallelism, constants as osConstants, setPriority } from 'node:os';
import type { DetectedType } from './detect.js';
import { demuxerOf, ffmpegPath } from './video-frame.js';

/**
 * Video and animated GIF conversion to what every browser and app plays: H.264 (yuv420p, even
 * width and height) with AAC sound in an MP4 whose index comes first (faststart), without the
 * file's metadata (titles, GPS positions, devices). The parameters are Mastodon's (its paperclip
 * transcoder): a video bit rate for the picture size, capped so that the file fits the size limit;
 * 192 kbit/s of sound; at most 36,000 frames; variable frame rate above the frame-rate limit. An
 * MP4 that already is H.264/yuv420p with AAC or no sound keeps its streams (copied, not
 * re-encoded), only its metadata goes.
 *
 * ffmpeg runs as a child process (never on the event loop), one conversion at a time in this
 * process, at a lower scheduling priority than the server, with a deadline for the video's length
 * and a cap on its output. Uploads are untrusted: the demuxer is fixed from the detected container and only local
 * files may be opened (no playlist or concat input can reach the network).
 */

/** What ffmpeg reports of a file's first video and audio streams. */
export interface StreamReport {
  video: {
    codec: string;
    pixelFormat: string | null;
    width: number;
    height: number;
    /** Average frames per second (ffmpeg's `fps`, ffprobe's avg_frame_rate). */
    frameRate: number | null;
    /** The base rate of the timestamps (ffmpeg's `tbr`, ffprobe's r_frame_rate): high for variable rates. */
    baseRate: number | null;
  } | null;
  audio: { codec: string } | null;
  /** Seconds, when the container says. */
  duration: number | null;
}

/** How a file becomes an MP4. */
export type ConversionPlan =
  /** Streams copied as they are into a new MP4 (already H.264/AAC): only the metadata goes. */
  | { mode: 'copy'; audio: boolean }
  /** Re-encoded. `bitrate` is the video bit rate in bit/s; `variableFrameRate` above the limit. */
  | { mode: 'encode'; audio: boolean; bitrate: number; variableFrameRate: boolean };

/** Why a conversion failed. */
export class TranscodeError extends Error {
  constructor(
    readonly reason: 'unreadable' | 'failed' | 'timeout' | 'too-large' | 'no-ffmpeg',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'TranscodeError';
  }
}

/** Mastodon's constants: bits per pixel for H.264 "High", sound bit rate, frame cap. */
const BITS_PER_PIXEL = 0.11;
const AUDIO_BITRATE = 192_000;
const MAX_FRAMES = 36_000;
/** The lowest video bit rate asked for (Mastodon's formula goes negative for very long files). */
const MIN_BITRATE = 100_000;
/**
 * Time one conversion may take: two minutes, and ten times the video's duration on top (encoding
 * 4K takes about three times its duration on two cores), at most an hour.
 */
export function conversionDeadline(durationSeconds: number | null): number {
  return Math.min(60 * 60_000, 2 * 60_000 + Math.max(0, durationSeconds ?? 0) * 10_000);
}
/** Time ffmpeg gets to report on a file's streams. */
const INSPECT_TIMEOUT_MS = 30_000;
/** Bytes of ffmpeg's report (or error output) kept. */
const MAX_REPORT_BYTES = 256 * 1024;

/** Test-only switches; null (off) in production. */
export const transcodeTestHooks: {
  /** Replaces the conversion deadline (ms). */
  timeoutMs: number | null;
  /** Called with ffmpeg's process id once a conversion has started. */
  onSpawn: ((pid: number) => void) | null;
} = { timeoutMs: null, onSpawn: null };

// ---- running ffmpeg ----

interface Run {
  code: number | null;
  output: string;
  timedOut: boolean;
}

/**
 * Runs ffmpeg with `args`; resolves with its exit code and the (capped) text it wrote on stderr.
 * Killed at `timeoutMs`. `conversion` lowers its priority and tells the test hook.
 */
function runFfmpeg(binary: string, args: string[], timeoutMs: number, conversion: boolean): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let output = '';
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    if (conversion && child.pid !== undefined) {
      // Requests come first: the conversion gets what the server leaves of the processor.
      try {
        setPriority(child.pid, osConstants.priority.PRIORITY_BELOW_NORMAL);
      } catch {
        // Not allowed here (some containers): it runs at normal priority.
      }
      transcodeTestHooks.onSpawn?.(child.pid);
    }
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      // The end of the output says why a run failed; the start is the stream report.
      output = (output + chunk).slice(-MAX_REPORT_BYTES);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: null, output: String(err), timedOut });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, output, timedOut });
    });
  });
}

/** One conversion at a time in this process, in arrival order (each may use every core). */
let busy = false;
const waiting: (() => void)[] = [];

async function conversionSlot<T>(work: () => Promise<T>): Promise<T> {
  if (busy) await new Promise<void>((resolve) => waiting.push(resolve));
  busy = true;
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else busy = false;
  }
}

/** The input arguments for an untrusted file of a detected type. */
function inputArgs(path: string, type: DetectedType): string[] {
  const demuxer = demuxerOf(type);
  if (!demuxer) throw new TranscodeError('unreadable', `no demuxer for ${type.mime}`);
  return ['-protocol_whitelist', 'file', '-f', demuxer, '-i', `file:${path}`];
}

// ---- reading ffmpeg's report ----

/** Splits a stream line's description at commas outside parentheses and brackets. */
function fields(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(' || ch === '[') depth++;
    else if ((ch === ')' || ch === ']') && depth > 0) depth--;
    if (ch === ',' && depth === 0) {
      out.push(current.trim());
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

/** A rate as ffmpeg prints it ("29.97", "25", "90k"). */
function rateValue(text: string): number | null {
  const m = /^([\d.]+)(k?)$/.exec(text);
  if (!m?.[1]) return null;
  const value = Number(m[1]) * (m[2] ? 1000 : 1);
  return Number.isFinite(value) && value > 0 ? value : null;
}

/**
 * Reads the stream report ffmpeg prints for an input (`ffmpeg -i file`): the first video stream's
 * codec, pixel format, size and frame rates, the first audio stream's codec, and the duration.
 */
export function parseStreamReport(text: string): StreamReport {
  const report: StreamReport = { video: null, audio: null, duration: null };
  const duration = /Duration: (\d+):(\d\d):(\d\d(?:\.\d+)?)/.exec(text);
  if (duration) report.duration = Number(duration[1]) * 3600 + Number(duration[2]) * 60 + Number(duration[3]);
  for (const line of text.split('\n')) {
    const m = /^\s*Stream #\d+:\d+.*?: (Video|Audio): (.*)$/.exec(line);
    if (!m?.[2]) continue;
    const parts = fields(m[2]);
    const codec = (parts[0] ?? '').split(/\s/)[0] ?? '';
    if (m[1] === 'Audio') {
      report.audio ??= { codec };
      continue;
    }
    if (report.video) continue;
    // The pixel format follows the codec ("yuv420p", "yuv420p(tv, bt709)", "bgra"), when known.
    const format = /^[a-z0-9_]+/.exec(parts[1] ?? '')?.[0] ?? null;
    const pixelFormat = format !== null && !/^\d/.test(format) ? format : null;
    const size = parts.map((p) => /^(\d+)x(\d+)/.exec(p)).find((x) => x !== null);
    const tbr = parts.map((p) => /^([\d.]+k?) tbr$/.exec(p)?.[1]).find((x) => x !== undefined);
    const fps = parts.map((p) => /^([\d.]+k?) fps$/.exec(p)?.[1]).find((x) => x !== undefined);
    report.video = {
      codec,
      pixelFormat,
      width: Number(size?.[1] ?? 0),
      height: Number(size?.[2] ?? 0),
      frameRate: rateValue(fps ?? tbr ?? ''),
      baseRate: rateValue(tbr ?? fps ?? ''),
    };
  }
  return report;
}

/**
 * What ffmpeg finds in a file: null when no ffmpeg is installed; a TranscodeError ('unreadable')
 * when it cannot read the file or finds no stream at all.
 */
export async function inspectStreams(path: string, type: DetectedType): Promise<StreamReport | null> {
  const binary = ffmpegPath();
  if (!binary) return null;
  const args = ['-nostdin', '-hide_banner', '-threads', '1', ...inputArgs(path, type)];
  // Without an output ffmpeg reports on the input and exits with an error: that report is all we want.
  const run = await runFfmpeg(binary, args, INSPECT_TIMEOUT_MS, false);
  const report = parseStreamReport(run.output);
  if (run.timedOut || (!report.video && !report.audio)) {
    throw new TranscodeError('unreadable', 'ffmpeg found no stream in the file', { cause: run.output.slice(-2000) });
  }
  return report;
}

// ---- deciding and converting ----

/**
 * How an upload becomes an MP4. An MP4 holding H.264 in yuv420p with AAC or no sound is copied
 * stream by stream (as Mastodon passes such files through); anything else is encoded, with
 * Mastodon's bit rate: 0.11 bit per pixel at 30 frames per second, but no more than what keeps
 * the file within `sizeLimit` bytes over its duration (leaving room for the sound).
 */
export function planConversion(type: DetectedType, report: StreamReport, limits: { sizeLimit: number; frameRateLimit: number }): ConversionPlan {
  const video = report.video;
  if (!video) throw new TranscodeError('unreadable', 'no video stream');
  const audio = report.audio !== null && type.container !== 'gif';
  const playable = video.codec === 'h264' && video.pixelFormat === 'yuv420p' && (report.audio === null || report.audio.codec === 'aac');
  if (type.mime === 'video/mp4' && playable) return { mode: 'copy', audio };
  const desired = Math.floor(video.width * video.height * 30 * BITS_PER_PIXEL);
  const duration = Math.max(report.duration ?? 1, 1);
  const fitting = Math.floor((limits.sizeLimit * 8) / duration) - AUDIO_BITRATE;
  const bitrate = Math.max(MIN_BITRATE, Math.min(desired, fitting));
  // Mastodon's test: a base rate above the limit is a variable frame rate, kept variable.
  const variableFrameRate = video.baseRate !== null && video.baseRate > limits.frameRateLimit;
  return { mode: 'encode', audio, bitrate, variableFrameRate };
}

/** ffmpeg's arguments for a plan, reading `input` and writing the MP4 `output` (at most `maxBytes`). */
export function conversionArgs(input: string, type: DetectedType, output: string, plan: ConversionPlan, maxBytes: number): string[] {
  const threads = String(Math.max(1, Math.min(4, availableParallelism())));
  const args = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-threads', threads, ...inputArgs(input, type)];
  args.push('-map', '0:v:0');
  if (plan.audio) args.push('-map', '0:a:0');
  // No subtitles, data streams, chapters or metadata (a phone's GPS position, its model…); the
  // picture's rotation is kept (it is side data of the stream, not metadata).
  args.push('-sn', '-dn', '-map_metadata', '-1', '-map_chapters', '-1');
  if (plan.mode === 'copy') {
    args.push('-c', 'copy');
  } else {
    const b = plan.bitrate;
    args.push(
      // H.264 wants even sides: one row or column is cropped rather than the picture scaled.
      '-vf', 'crop=trunc(iw/2)*2:trunc(ih/2)*2',
      '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p',
      '-b:v', String(b), '-maxrate', String(b + AUDIO_BITRATE), '-bufsize', String(b * 5),
      '-frames:v', String(MAX_FRAMES),
    );
    if (plan.variableFrameRate) args.push('-vsync', 'vfr');
    if (plan.audio) args.push('-c:a', 'aac', '-b:a', String(AUDIO_BITRATE));
    else args.push('-an');
  }
  args.push('-movflags', '+faststart', '-fs', String(maxBytes), '-threads', threads, '-f', 'mp4', '-y', `file:${output}`);
  return args;
}

/**
 * Converts `input` to the MP4 `output` as `plan` says, in a child process, one at a time, within
 * the deadline for its duration (see conversionDeadline). Rejects with a TranscodeError when ffmpeg fails, runs out of time, or its output
 * reaches `maxBytes` (it stops there, which would leave a cut file); the caller removes `output`.
 */
export async function convertToMp4(input: string, type: DetectedType, output: string, plan: ConversionPlan, limits: { maxBytes: number; durationSeconds: number | null }): Promise<void> {
  const binary = ffmpegPath();
  if (!binary) throw new TranscodeError('no-ffmpeg', 'ffmpeg is not installed');
  const { maxBytes } = limits;
  const args = conversionArgs(input, type, output, plan, maxBytes);
  const deadline = transcodeTestHooks.timeoutMs ?? conversionDeadline(limits.durationSeconds);
  const run = await conversionSlot(() => runFfmpeg(binary, args, deadline, true));
  if (run.timedOut) throw new TranscodeError('timeout', 'the conversion took too long');
  if (run.code !== 0) throw new TranscodeError('failed', `ffmpeg failed (${run.code ?? 'not started'})`, { cause: run.output.slice(-2000) });
  // ffmpeg stops writing at -fs and exits as if all went well: a file that reached it is cut.
  const { size } = await stat(output);
  if (size >= maxBytes) throw new TranscodeError('too-large', `the converted file reached ${maxBytes} bytes`);
}
