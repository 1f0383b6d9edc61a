import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * Runs axe-core in the page. It goes in through the DevTools protocol (page.evaluate), which the
 * page's CSP does not govern, so the app's own CSP stays as strict as in use.
 */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: object): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run(document, { resultTypes: ['violations'] })).violations;
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

/** The main screens, each with what shows it is ready. */
const SCREENS: { path: (ids: { statusId: string }) => string; ready: (page: Page) => Promise<void>; name: string }[] = [
  { name: 'home', path: () => '/', ready: (p) => p.getByRole('feed', { name: 'Home' }).getByRole('article').first().waitFor() },
  { name: 'thread', path: ({ statusId }) => `/@bob/${statusId}`, ready: (p) => p.getByRole('article').first().waitFor() },
  { name: 'compose', path: () => '/compose', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
  { name: 'profile', path: () => '/@bob', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
  { name: 'notifications', path: () => '/notifications', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
  { name: 'explore', path: () => '/explore', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
  { name: 'search', path: () => '/search', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
  { name: 'settings', path: () => '/settings', ready: (p) => p.getByRole('heading', { level: 1 }).waitFor() },
];

describe('accessibility of the main screens (axe-core)', () => {
  const env = useInstance(['alice', 'bob']);
  const browser = useChromium();

  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious or critical violation in the ${scheme} theme`, async () => {
      const { inst, users } = env();
      await users.alice.client.post(`/api/v1/accounts/${users.bob.accountId}/follow`, {});
      const status = await postStatus(users.bob.client, { status: `A post to look at (${scheme})`, spoiler_text: scheme === 'dark' ? 'a warning' : '' });
      await users.alice.client.post(`/api/v1/statuses/${status.id}/favourite`, {});
      const { context, page } = await openPage(browser(), { colorScheme: scheme });
      await signInWithToken(page, inst, users.alice);
      const found: Record<string, string[]> = {};
      for (const screen of SCREENS) {
        await page.goto(`${inst.url}${screen.path({ statusId: status.id })}`);
        await screen.ready(page);
        const violations = await seriousViolations(page);
        if (violations.length > 0) found[screen.name] = violations;
      }
      expect(found).toEqual({});
      expectCleanPage(page);
      await context.close();
    }, 90_000);
  }
});
