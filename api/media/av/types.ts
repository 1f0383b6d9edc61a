/** What the container readers find out about an audio or video file, without decoding it. */
export interface AvProbe {
  /** True when the file has a video track (a picture). */
  hasVideo: boolean;
  /** True when the file has an audio track. */
  hasAudio: boolean;
  width: number | null;
  height: number | null;
  /** Seconds, or null when the container does not say. */
  duration: number | null;
  /** Frames per second as a rational "num/den", as ffprobe writes it. */
  frameRate: string | null;
  audioCodec: string | null;
  sampleRate: number | null;
  channels: number | null;
}

/** A probe with nothing known yet. */
export function emptyProbe(): AvProbe {
  return { hasVideo: false, hasAudio: false, width: null, height: null, duration: null, frameRate: null, audioCodec: null, sampleRate: null, channels: null };
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** A frame rate `count` frames per `seconds` as "num/den" in lowest terms (rounded to 1/1000). */
export function rational(num: number, den: number): string | null {
  if (!Number.isFinite(num) || !Number.isFinite(den) || num <= 0 || den <= 0) return null;
  // Integers keep their exact ratio; anything else is expressed in thousandths.
  let n = Number.isInteger(num) && Number.isInteger(den) ? num : Math.round((num / den) * 1000);
  let d = Number.isInteger(num) && Number.isInteger(den) ? den : 1000;
  const g = gcd(n, d);
  n /= g;
  d /= g;
  return `${n}/${d}`;
}

/** The value of a "num/den" rational. */
export function rationalValue(value: string | null): number | null {
  if (!value) return null;
  const [n, d] = value.split('/').map(Number);
  if (n === undefined || d === undefined || !d) return null;
  return n / d;
}
