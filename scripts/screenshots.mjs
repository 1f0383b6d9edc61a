// `npm run screenshots`: pictures of the app's main screens (home, thread, compose with media,
// profile, notifications, settings) in the light and dark themes, into docs/screenshots/, taken
// in Debian's Chromium from a fresh `hearth serve` filled with a little life through the API.
// Run `npm run build` first.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { chromium } from 'playwright-core';
import { freshDataDir, hearth, root, startHearth, stop } from '../bench/lib/procs.mjs';

const out = join(root, 'docs', 'screenshots');
mkdirSync(out, { recursive: true });

const dataDir = freshDataDir('screens');
const people = [
  ['kim', 'owner', 'Kim Lindqvist', 'Baker, hiker, keeper of this little instance.'],
  ['sam', 'user', 'Sam', 'Kim’s brother. Mostly bikes and bread.'],
  ['ada', 'user', 'Ada', 'Grows tomatoes. Reads everything.'],
];
const tokens = {};
for (const [name, role] of people) {
  hearth(['account', 'create', '--data', dataDir, '--username', name, '--password', `${name}-password-123`, '--role', role]);
  tokens[name] = hearth(['token', '--data', dataDir, '--username', name, '--scopes', 'read write follow push admin:read admin:write']);
}
const server = await startHearth(dataDir, ['--rate-limit-scale', '100']);

async function api(name, method, path, body) {
  const init = { method, headers: { authorization: `Bearer ${tokens[name]}` } };
  if (body instanceof FormData) init.body = body;
  else if (body) {
    init.body = JSON.stringify(body);
    init.headers['content-type'] = 'application/json';
  }
  const res = await fetch(server.url + path, init);
  const json = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

const ids = {};
for (const [name, , displayName, note] of people) {
  const me = await api(name, 'PATCH', '/api/v1/accounts/update_credentials', { display_name: displayName, note });
  ids[name] = me.id;
}
for (const [a, b] of [['kim', 'sam'], ['kim', 'ada'], ['sam', 'kim'], ['ada', 'kim']]) await api(a, 'POST', `/api/v1/accounts/${ids[b]}/follow`);

// A picture for a post: a warm gradient made with sharp.
const width = 1200;
const height = 800;
const pixels = Buffer.alloc(width * height * 3);
for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) {
  const i = (y * width + x) * 3;
  pixels[i] = 200 + Math.round((55 * x) / width);
  pixels[i + 1] = 120 + Math.round((80 * y) / height);
  pixels[i + 2] = 60;
}
const png = await sharp(pixels, { raw: { width, height, channels: 3 } }).png().toBuffer();
const form = new FormData();
form.append('file', new Blob([png], { type: 'image/png' }), 'sunset.png');
form.append('description', 'An orange evening sky over the allotments');
const media = await api('ada', 'POST', '/api/v2/media', form);

const first = await api('sam', 'POST', '/api/v1/statuses', { status: 'Sourdough attempt number four. The crumb is finally open! #baking' });
await api('ada', 'POST', '/api/v1/statuses', { status: 'The evening over the allotments today.', media_ids: [media.id] });
await api('ada', 'POST', '/api/v1/statuses', { status: 'Which tomatoes next year?', poll: { options: ['Cherry', 'Beefsteak', 'San Marzano'], expires_in: 86400 } });
const reply = await api('kim', 'POST', '/api/v1/statuses', { status: '@sam it looks great. Bring some on Sunday?', in_reply_to_id: first.id });
await api('sam', 'POST', '/api/v1/statuses', { status: '@kim Deal. Two loaves.', in_reply_to_id: reply.id });
await api('sam', 'POST', `/api/v1/statuses/${reply.id}/favourite`);
await api('ada', 'POST', `/api/v1/statuses/${reply.id}/favourite`);
await api('ada', 'POST', '/api/v1/statuses', { status: 'Spoilers for the book club', spoiler_text: 'Book club: chapter 12' });

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-dev-shm-usage'] });
try {
  const me = await api('kim', 'GET', '/api/v1/accounts/verify_credentials');
  for (const scheme of ['light', 'dark']) {
    const context = await browser.newContext({ viewport: { width: 1100, height: 820 }, colorScheme: scheme, reducedMotion: 'reduce' });
    const stored = JSON.stringify([{ id: me.id, acct: me.acct, displayName: me.display_name, avatar: me.avatar, accessToken: tokens.kim, scope: 'read write follow push admin:read admin:write' }]);
    await context.addInitScript((value) => {
      localStorage.setItem('hearth.accounts', value);
      localStorage.setItem('hearth.active', JSON.parse(value)[0].id);
    }, stored);
    const page = await context.newPage();
    const shots = [
      ['home', '/', () => page.getByRole('feed').getByRole('article').first().waitFor()],
      ['thread', `/@sam/${first.id}`, () => page.getByRole('article').nth(1).waitFor()],
      ['profile', '/@ada', () => page.getByRole('heading', { level: 1 }).waitFor()],
      ['notifications', '/notifications', () => page.getByRole('heading', { level: 1 }).waitFor()],
      ['settings', '/settings/profile', () => page.getByRole('heading', { level: 1 }).waitFor()],
      ['compose', '/compose', () => page.getByRole('heading', { level: 1 }).waitFor()],
    ];
    for (const [name, path, ready] of shots) {
      await page.goto(server.url + path);
      await ready();
      if (name === 'compose') {
        const file = page.locator('input[type=file]').first();
        if (await file.count()) await file.setInputFiles({ name: 'sunset.png', mimeType: 'image/png', buffer: png });
        const text = page.getByRole('textbox').first();
        if (await text.count()) await text.fill('Fresh bread and a sky like this. A good Saturday.');
        await page.waitForTimeout(1500);
      }
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(out, `${name}-${scheme}.png`) });
      console.log(`docs/screenshots/${name}-${scheme}.png`);
    }
    await context.close();
  }
} finally {
  await browser.close();
  await stop(server.child);
}
