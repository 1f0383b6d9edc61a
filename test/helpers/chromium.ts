import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { TestInstance, TestUser } from './instance.js';

/**
 * The test rig for the app (renderer/): Debian's Chromium driven by playwright-core, one browser
 * per test worker (see `useChromium`). Every page is watched: an uncaught error, a console error or a
 * Content-Security-Policy violation fails the test that caused it (see `expectCleanPage`).
 */

export const CHROMIUM = '/usr/bin/chromium';

/** What a page did wrong while a test drove it. */
export interface PageProblems {
  errors: string[];
  cspViolations: string[];
}

const problems = new WeakMap<Page, PageProblems>();

/** Starts Chromium (headless; root needs --no-sandbox, as in CI). */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is not installed at ${CHROMIUM}: apt-get install chromium (.ci/run does)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-extensions', '--no-first-run'],
  });
}

/** Opens a page in a context of its own (own storage), watched for errors and CSP violations. */
export async function openPage(browser: Browser, options: { colorScheme?: 'light' | 'dark'; viewport?: { width: number; height: number } } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ colorScheme: options.colorScheme ?? 'light', viewport: options.viewport ?? { width: 1100, height: 900 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const found: PageProblems = { errors: [], cspViolations: [] };
  problems.set(page, found);
  page.on('pageerror', (e) => found.errors.push(`pageerror: ${e.message}`));
  page.on('console', (m) => {
    if (m.type() !== 'error') return;
    const text = m.text();
    if (/Content Security Policy|Content-Security-Policy/i.test(text)) found.cspViolations.push(text);
    // A failed request is reported by the test that expects it (e.g. a 404 the app handles).
    else if (!/Failed to load resource/.test(text)) found.errors.push(`console: ${text}`);
  });
  await context.exposeBinding('__hearthCsp', (_source, text: string) => void found.cspViolations.push(text));
  // Runs in the page (a string: the test code has no DOM types).
  await context.addInitScript({
    content: "document.addEventListener('securitypolicyviolation', (e) => window.__hearthCsp(e.violatedDirective + ' ' + e.blockedURI));",
  });
  return { context, page };
}

/** Fails when the page threw, logged an error or broke the CSP. */
export function expectCleanPage(page: Page): void {
  const found = problems.get(page);
  expect(found?.cspViolations ?? []).toEqual([]);
  expect(found?.errors ?? []).toEqual([]);
}

/** The problems seen so far on a page (for tests that expect some). */
export function pageProblems(page: Page): PageProblems {
  return problems.get(page) ?? { errors: [], cspViolations: [] };
}

/**
 * The worker's one Chromium, launched by the first test file that asks and kept for the next ones
 * (most test files share their worker's modules: see vitest.config.ts). Launching and closing a
 * browser for each file cost about 2 s of each of some thirty files; each file still gets contexts
 * of its own (`openPage`), closed when the file ends. Playwright ends the browser when the worker exits.
 */
let shared: Promise<Browser> | null = null;

async function workerBrowser(): Promise<Browser> {
  if (shared) {
    const browser = await shared.catch(() => null);
    if (browser?.isConnected()) return browser;
  }
  shared = launchChromium();
  return shared;
}

/** Chromium for the whole test file: the worker's shared browser; the file's contexts close after it. */
export function useChromium(): () => Browser {
  let browser: Browser | null = null;
  beforeAll(async () => {
    browser = await workerBrowser();
  });
  afterAll(async () => {
    const used = browser;
    browser = null;
    if (used?.isConnected()) await Promise.all(used.contexts().map((c) => c.close().catch(() => undefined)));
  });
  return () => {
    if (!browser) throw new Error('useChromium: only inside tests');
    return browser;
  };
}

/**
 * Signs in as a person does: the app's "Sign in" button, the instance's sign-in form, the consent
 * page, back to the app's home timeline.
 */
export async function signInThroughUi(page: Page, inst: TestInstance, user: TestUser): Promise<void> {
  await page.goto(`${inst.url}/`);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Username or e-mail address').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Authorize' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
}

/**
 * Puts a signed-in account straight into the app's storage (a token the rig issued), for tests of
 * other screens than signing in. The app checks it against the instance like any stored session.
 */
export async function signInWithToken(page: Page, inst: TestInstance, user: TestUser, token = user.token): Promise<void> {
  const me = (await (await fetch(`${inst.url}/api/v1/accounts/verify_credentials`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { id: string; acct: string; display_name: string; avatar: string };
  const stored = { id: me.id, acct: me.acct, displayName: me.display_name || me.acct, avatar: me.avatar, accessToken: token, scope: 'read write follow push' };
  await page.context().addInitScript((value: string) => {
    if (!localStorage.getItem('hearth.accounts')) {
      localStorage.setItem('hearth.accounts', value);
      localStorage.setItem('hearth.active', (JSON.parse(value) as { id: string }[])[0]?.id ?? '');
    }
  }, JSON.stringify([stored]));
}

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical findings on the page, one line each (rule, impact, help, where).
 * axe goes in through the DevTools protocol (page.evaluate), which the page's CSP does not govern,
 * so the app's own CSP stays as strict as in use.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate<{ id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[]>(
    'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations)',
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.map(String).join(' ')).slice(0, 3).join(', ')}`);
}
