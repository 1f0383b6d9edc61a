// Issue 5 benchmark: image uploads. A 12-megapixel JPEG (4000×3000, as a phone takes it) is sent
// to POST /api/v1/media one after the other: seconds per image, images per second, and the
// server's peak resident memory (VmHWM). Meanwhile a client reads the home timeline, whose p99 is
// compared with the same reading on an idle server. Targets: ≤ 1 s per image, peak RSS ≤ 300 MiB,
// home p99 ≤ 10 ms while images are processed. BENCH_MEDIA_IMAGES sets the number of uploads.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { fmt, freshDataDir, hearth, root, rssMiB, startHearth, stop } from './lib/procs.mjs';

const IMAGES = Number(process.env.BENCH_MEDIA_IMAGES ?? 10);
const HOME = '/api/v1/timelines/home';
const run$ = promisify(execFile);

/** Peak resident memory of a process so far, in MiB (the kernel's high-water mark). */
function peakMiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
}

function loadAverage() {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** A 12 MP photo-like JPEG: smooth gradients with fine detail, quality 92, EXIF orientation as given. */
async function photo(orientation) {
  const width = 4000;
  const height = 3000;
  const raw = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const detail = ((x * 31) ^ (y * 17)) & 15;
      raw[i] = (Math.floor((x / width) * 200) + detail) & 255;
      raw[i + 1] = (Math.floor((y / height) * 200) + detail) & 255;
      raw[i + 2] = (Math.floor(((x + y) / (width + height)) * 255) ^ detail) & 255;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality: 92 })
    .withMetadata({ orientation })
    .withExifMerge({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '48/1 51/1 0/1', GPSLongitudeRef: 'E', GPSLongitude: '2/1 21/1 0/1' } })
    .toBuffer();
}

/** Reads the home timeline from a separate process for `durationMs` (one client, back to back). */
async function homeLoad(url, token, durationMs) {
  const options = { url: url + HOME, headers: { authorization: `Bearer ${token}` }, concurrency: 1, durationMs, warmupMs: 200 };
  const { stdout } = await run$(process.execPath, [join(root, 'bench', 'lib', 'load-worker.mjs'), JSON.stringify(options)], { maxBuffer: 1 << 20 });
  return JSON.parse(stdout);
}

async function uploadOnce(url, token, bytes) {
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: 'image/jpeg' }), 'photo.jpg');
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/media`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  const body = await res.json();
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`upload answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms, body };
}

export async function run() {
  const dataDir = freshDataDir('media');
  hearth(['account', 'create', '--data', dataDir, '--username', 'bench', '--password', 'bench-password-1', '--role', 'owner']);
  const token = hearth(['token', '--data', dataDir, '--username', 'bench', '--scopes', 'read write']);
  const images = { upright: await photo(1), sideways: await photo(6) };
  console.log(`12 MP JPEG: ${(images.upright.length / 1048576).toFixed(1)} MiB (upright), ${(images.sideways.length / 1048576).toFixed(1)} MiB (EXIF orientation 6)`);

  const server = await startHearth(dataDir);
  try {
    for (let i = 0; i < 20; i++) {
      const res = await fetch(`${server.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ status: `status ${i} for the home timeline #bench` }),
      });
      if (res.status !== 200) throw new Error(`posting answered ${res.status}`);
    }
    await new Promise((r) => setTimeout(r, 500));
    const idleRss = rssMiB(server.child.pid);
    const idleHome = await homeLoad(server.url, token, 2000);

    const rows = [];
    let busyHome = null;
    for (const [name, bytes] of Object.entries(images)) {
      // The first upload warms the image library up; it is measured apart.
      const first = await uploadOnce(server.url, token, bytes);
      const times = [];
      const loading = name === 'upright' ? homeLoad(server.url, token, 1500 + IMAGES * 600) : null;
      const started = performance.now();
      let last = first.body;
      for (let i = 0; i < IMAGES; i++) {
        const r = await uploadOnce(server.url, token, bytes);
        times.push(r.ms);
        last = r.body;
      }
      const total = (performance.now() - started) / 1000;
      if (loading) busyHome = await loading;
      times.sort((a, b) => a - b);
      rows.push({
        image: `12 MP JPEG, ${name}`,
        uploads: IMAGES,
        first_s: fmt(first.ms / 1000, 2),
        median_s: fmt(times[Math.floor(times.length / 2)] / 1000, 2),
        max_s: fmt(times[times.length - 1] / 1000, 2),
        images_per_s: fmt(IMAGES / total, 2),
        stored: `${last.meta.original.width}×${last.meta.original.height}`,
        peak_rss_mib: fmt(peakMiB(server.child.pid), 0),
        load: loadAverage(),
      });
    }
    console.table(rows);
    console.log(`server RSS: idle ${fmt(idleRss, 0)} MiB, peak ${fmt(peakMiB(server.child.pid), 0)} MiB (VmHWM), now ${fmt(rssMiB(server.child.pid), 0)} MiB`);
    console.table([
      { home_timeline: 'idle server', requests: idleHome.requests, p50_ms: fmt(idleHome.p50, 2), p99_ms: fmt(idleHome.p99, 2), errors: idleHome.errors },
      { home_timeline: 'while uploading', requests: busyHome?.requests, p50_ms: fmt(busyHome?.p50, 2), p99_ms: fmt(busyHome?.p99, 2), errors: busyHome?.errors },
    ]);
    console.log('targets: ≤ 1 s per 12 MP JPEG; peak RSS ≤ 300 MiB; home p99 ≤ 10 ms while images are processed');
  } finally {
    await stop(server.child);
  }
}
