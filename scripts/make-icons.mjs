// Draws every icon the desktop app needs from the two SVG sources in build/ (run it again after
// changing either; its output is committed, so packaging never needs it):
//   build/icon.svg  -> build/icons/NxN.png (Linux, and the window icon), build/icon.ico (Windows:
//                      PNG entries 16-256), build/icon.icns (macOS: PNG entries ic07-ic14)
//   build/tray.svg  -> build/tray/: macOS template images (black on transparent, 16 px and @2x),
//                      and Hearth-coloured tray icons for Linux and Windows (16, 24, 32 px), each
//                      also with a dot for unread notifications.
// The ICO and ICNS containers are written here (a header and a table of PNG images each), so no
// other tool is needed than sharp, which renders the SVG at each size.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, 'build');

/** The sizes of build/icons/NxN.png. */
export const PNG_SIZES = [16, 24, 32, 48, 64, 128, 256, 512, 1024];
/** The sizes inside build/icon.ico (256 is the largest an ICO entry may be). */
export const ICO_SIZES = [16, 24, 32, 48, 64, 128, 256];
/** The ICNS entries that hold PNG data, and their pixel sizes (ic11-ic14 are the @2x ones). */
export const ICNS_TYPES = [
  ['ic11', 32],
  ['ic12', 64],
  ['ic07', 128],
  ['ic13', 256],
  ['ic08', 256],
  ['ic14', 512],
  ['ic09', 512],
  ['ic10', 1024],
];

const ORANGE = '#D9532B';
const CREAM = '#FFF4E6';
/** The unread dot: its colour (in colour icons), centre and radius on the tray's 32-unit grid. */
const DOT = { colour: '#1F6FEB', cx: 25.5, cy: 6.5, r: 5.5, gap: 2 };

/** Renders an SVG at exactly `size`×`size` pixels (drawn at that size, not scaled from a bitmap). */
async function render(svg, size) {
  const width = Number(/<svg[^>]*\bwidth="(\d+(?:\.\d+)?)"/.exec(svg)?.[1] ?? 0);
  if (!width) throw new Error('the SVG needs a width');
  return sharp(Buffer.from(svg), { density: (72 * size) / width })
    .resize(size, size)
    .png({ compressionLevel: 9 })
    .toBuffer();
}

/**
 * An ICO file holding PNG images: a 6-byte header (reserved 0, type 1 for icons, the count), one
 * 16-byte directory entry per image (width and height, 0 meaning 256; colour count 0; planes 1;
 * 32 bits per pixel; the data's length and offset), then the PNG data.
 */
export function icoFile(images) {
  const header = Buffer.alloc(6);
  header.writeUInt16LE(0, 0);
  header.writeUInt16LE(1, 2);
  header.writeUInt16LE(images.length, 4);
  const entries = Buffer.alloc(16 * images.length);
  let offset = header.length + entries.length;
  images.forEach(({ size, png }, i) => {
    const at = 16 * i;
    entries.writeUInt8(size >= 256 ? 0 : size, at);
    entries.writeUInt8(size >= 256 ? 0 : size, at + 1);
    entries.writeUInt8(0, at + 2);
    entries.writeUInt8(0, at + 3);
    entries.writeUInt16LE(1, at + 4);
    entries.writeUInt16LE(32, at + 6);
    entries.writeUInt32LE(png.length, at + 8);
    entries.writeUInt32LE(offset, at + 12);
    offset += png.length;
  });
  return Buffer.concat([header, entries, ...images.map((image) => image.png)]);
}

/**
 * An ICNS file: the magic `icns` and the file's length (big-endian), then one element per image:
 * its 4-character type, its length including this 8-byte element header, and the PNG data.
 */
export function icnsFile(elements) {
  const parts = elements.map(({ type, png }) => {
    const head = Buffer.alloc(8);
    head.write(type, 0, 'latin1');
    head.writeUInt32BE(png.length + 8, 4);
    return Buffer.concat([head, png]);
  });
  const head = Buffer.alloc(8);
  head.write('icns', 0, 'latin1');
  head.writeUInt32BE(8 + parts.reduce((n, p) => n + p.length, 0), 4);
  return Buffer.concat([head, ...parts]);
}

/** The tray SVG in one look: `template` (black, flame cut out) or colour; with the unread dot or not. */
function traySvg(source, { template, unread }) {
  const path = (id) => {
    const d = new RegExp(`<path[^>]*\\bid="${id}"[^>]*\\bd="([^"]+)"`, 's').exec(source)?.[1];
    if (!d) throw new Error(`build/tray.svg has no path with id "${id}"`);
    return d;
  };
  const ink = template ? '#000000' : ORANGE;
  // The dot stands apart from the house: the house is masked out in a ring around it.
  const mask = unread
    ? `<mask id="apart"><rect width="32" height="32" fill="#fff"/><circle cx="${DOT.cx}" cy="${DOT.cy}" r="${DOT.r + DOT.gap}" fill="#000"/></mask>`
    : '';
  return [
    '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32">',
    mask,
    `<g${unread ? ' mask="url(#apart)"' : ''}>`,
    template ? '' : `<path fill="${CREAM}" d="${path('flame')}"/>`,
    `<path fill-rule="evenodd" fill="${ink}" d="${path('house')}"/>`,
    '</g>',
    unread ? `<circle cx="${DOT.cx}" cy="${DOT.cy}" r="${DOT.r}" fill="${template ? '#000000' : DOT.colour}"/>` : '',
    '</svg>',
  ].join('');
}

/** Draws every file; returns the paths written (relative to the repository). */
export async function makeIcons() {
  const written = [];
  const write = (rel, data) => {
    const file = join(root, rel);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, data);
    written.push(rel);
  };
  const icon = readFileSync(join(build, 'icon.svg'), 'utf8');
  const pngs = new Map();
  for (const size of PNG_SIZES) {
    const png = await render(icon, size);
    pngs.set(size, png);
    write(`build/icons/${size}x${size}.png`, png);
  }
  write('build/icon.ico', icoFile(ICO_SIZES.map((size) => ({ size, png: pngs.get(size) }))));
  write('build/icon.icns', icnsFile(ICNS_TYPES.map(([type, size]) => ({ type, png: pngs.get(size) }))));

  const tray = readFileSync(join(build, 'tray.svg'), 'utf8');
  for (const unread of [false, true]) {
    // macOS: a "Template" image is drawn by the system in the menu bar's colour (light or dark).
    const template = traySvg(tray, { template: true, unread });
    const name = unread ? 'trayUnreadTemplate' : 'trayTemplate';
    write(`build/tray/${name}.png`, await render(template, 16));
    write(`build/tray/${name}@2x.png`, await render(template, 32));
    const colour = traySvg(tray, { template: false, unread });
    for (const size of [16, 24, 32]) write(`build/tray/tray${unread ? '-unread' : ''}-${size}.png`, await render(colour, size));
  }
  return written;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const written = await makeIcons();
  console.log(`wrote ${written.length} files:\n  ${written.join('\n  ')}`);
}
