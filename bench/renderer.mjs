// Issue 16 benchmark: the app in Debian's Chromium (playwright-core) against a warm `hearth serve`
// with 10,000 statuses in the reader's home timeline (seeded as bench/timeline.mjs does).
// - first home paint: from navigation start to the first post of the home feed on screen
//   (a fresh browser context each run, so the app's JS is fetched too; median of BENCH_APP_RUNS, default 7);
// - JS transferred for the first screen: the compressed bytes of every script the page loaded
//   until the home feed showed (CDP Network.loadingFinished encodedDataLength);
// - scrolling 1,000 posts: the window scrolled by 600 px a frame until post 1,000 of the feed
//   has been rendered; the longest task seen (PerformanceObserver 'longtask', which reports tasks
//   of 50 ms and more) and the longest gap between animation frames;
// - memory of the page after that scroll: JS heap used (CDP Performance.getMetrics, after a GC) and DOM nodes.
import { chromium } from 'playwright-core';
import { join } from 'node:path';
import { fmt, freshDataDir, hearth, loadAverage, startHearth, stop } from './lib/procs.mjs';
import { seedHomeTimeline } from './lib/seed-timeline.mjs';

const RUNS = Number(process.env.BENCH_APP_RUNS ?? 7);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** A context signed in as the reader (the token put where the app keeps its accounts). */
async function signedInContext(browser, server, token, me) {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const stored = JSON.stringify([{ id: me.id, acct: me.acct, displayName: me.acct, avatar: me.avatar, accessToken: token, scope: 'read write' }]);
  await context.addInitScript((value) => {
    localStorage.setItem('hearth.accounts', value);
    localStorage.setItem('hearth.active', JSON.parse(value)[0].id);
    // The moment the first post of the home feed is in the DOM, then painted (next frame).
    new MutationObserver((_, observer) => {
      if (document.querySelector('[role=feed] article')) {
        observer.disconnect();
        requestAnimationFrame(() => {
          window.__firstPost = performance.now();
        });
      }
    }).observe(document, { childList: true, subtree: true });
  }, stored);
  return context;
}

async function firstPaint(browser, server, token, me) {
  const context = await signedInContext(browser, server, token, me);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  const types = new Map();
  let scriptBytes = 0;
  cdp.on('Network.responseReceived', (e) => types.set(e.requestId, e.type));
  cdp.on('Network.loadingFinished', (e) => {
    if (types.get(e.requestId) === 'Script') scriptBytes += e.encodedDataLength;
  });
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => window.__firstPost !== undefined, null, { timeout: 30_000 });
  const ms = await page.evaluate(() => window.__firstPost);
  await context.close();
  return { ms, scriptBytes };
}

async function scrollThousand(browser, server, token, me) {
  const context = await signedInContext(browser, server, token, me);
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  await page.goto(`${server.url}/`);
  await page.waitForSelector('[role=feed] article');
  const result = await page.evaluate(
    () =>
      new Promise((resolve) => {
        let longest = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) longest = Math.max(longest, e.duration);
        }).observe({ type: 'longtask', buffered: false });
        let last = performance.now();
        let gap = 0;
        const started = performance.now();
        const step = () => {
          const now = performance.now();
          gap = Math.max(gap, now - last);
          last = now;
          const max = Math.max(0, ...[...document.querySelectorAll('[role=feed] article')].map((a) => Number(a.getAttribute('aria-posinset') ?? 0)));
          if (max >= 1000 || now - started > 120_000) return resolve({ longest, gap, reached: max, seconds: (now - started) / 1000 });
          window.scrollBy(0, 600);
          requestAnimationFrame(step);
        };
        requestAnimationFrame(step);
      }),
  );
  await cdp.send('HeapProfiler.collectGarbage');
  const metrics = Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  await context.close();
  return { ...result, heapMiB: metrics.JSHeapUsedSize / 1048576, nodes: metrics.Nodes };
}

export async function run() {
  const dataDir = freshDataDir('app');
  hearth(['account', 'create', '--data', dataDir, '--username', 'reader', '--password', 'reader-password-1', '--role', 'owner']);
  const token = hearth(['token', '--data', dataDir, '--username', 'reader', '--scopes', 'read write']);
  seedHomeTimeline(join(dataDir, 'hearth.sqlite3'), { readerUsername: 'reader', total: 10_000 });
  const server = await startHearth(dataDir, ['--rate-limit-scale', '100']);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-dev-shm-usage'] });
  try {
    const me = await (await fetch(`${server.url}/api/v1/accounts/verify_credentials`, { headers: { authorization: `Bearer ${token}` } })).json();
    // Warm the instance (and Chromium) before measuring.
    for (let i = 0; i < 2; i++) await firstPaint(browser, server, token, me);
    const paints = [];
    for (let i = 0; i < RUNS; i++) paints.push(await firstPaint(browser, server, token, me));
    const scroll = await scrollThousand(browser, server, token, me);
    const kb = median(paints.map((p) => p.scriptBytes)) / 1024;
    console.table([
      { measure: 'first home paint (ms, median)', figure: fmt(median(paints.map((p) => p.ms)), 0), target: '≤ 300', runs: paints.map((p) => fmt(p.ms, 0)).join(' ') },
      { measure: 'JS for the first screen (KB compressed)', figure: fmt(kb, 1), target: '≤ 250', runs: '' },
      { measure: `scrolling ${scroll.reached} posts: longest task (ms)`, figure: scroll.longest === 0 ? '< 50 (none reported)' : fmt(scroll.longest, 0), target: '≤ 50', runs: `${fmt(scroll.seconds, 1)} s` },
      { measure: 'scrolling: longest frame gap (ms)', figure: fmt(scroll.gap, 0), target: '', runs: '' },
      { measure: 'page memory after the scroll (MiB JS heap)', figure: fmt(scroll.heapMiB, 1), target: '≤ 150', runs: `${scroll.nodes} DOM nodes` },
    ]);
    console.log(`load average: ${loadAverage()}`);
  } finally {
    await browser.close();
    await stop(server.child);
  }
}
