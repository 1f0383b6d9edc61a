import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The software's own version, read once from package.json at start-up. The file is found by
 * walking up from this module, so it works from the sources (api/util) and from the build
 * (dist/api/util) alike.
 */
interface PackageJson {
  name?: string;
  version?: string;
  homepage?: string;
  repository?: string | { url?: string };
}

function readPackageJson(): PackageJson {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as PackageJson;
      if (pkg.name === 'hearth') return pkg;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new Error('package.json of hearth not found');
}

/** Turns npm's `repository` forms (`git+https://…/x.git`, `{url}`) into a web URL, if it is one. */
function webUrl(value: string | undefined): string | null {
  if (!value) return null;
  const cleaned = value.replace(/^git\+/, '').replace(/\.git$/, '');
  try {
    const url = new URL(cleaned);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href.replace(/\/$/, '') : null;
  } catch {
    return null;
  }
}

const pkg = readPackageJson();

/** Hearth's version, as in package.json (`0.1.0`). */
export const HEARTH_VERSION: string = pkg.version ?? '0.0.0';

/** The Mastodon version whose API Hearth implements; clients gate features on it. */
export const MASTODON_API_COMPAT = '4.5.0';

/**
 * The version string of the instance APIs, in the form other compatible servers use so that
 * clients parse the leading Mastodon version: `4.5.0 (compatible; Hearth 0.1.0)`.
 */
export const VERSION_STRING = `${MASTODON_API_COMPAT} (compatible; Hearth ${HEARTH_VERSION})`;

/**
 * Where the source code is published, from package.json's `repository` (or `homepage`), or null
 * while the package declares neither: no URL is made up.
 */
export const SOURCE_REPOSITORY_URL: string | null = webUrl(typeof pkg.repository === 'string' ? pkg.repository : pkg.repository?.url);

/** The project's home page from package.json, or null when it declares none. */
export const HOMEPAGE_URL: string | null = webUrl(pkg.homepage);
