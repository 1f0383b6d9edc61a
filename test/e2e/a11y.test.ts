import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { postStatus, useInstance } from '../helpers/fixtures.js';
import { expectCleanPage, openPage, seriousA11yViolations, signInWithToken, useChromium } from '../helpers/chromium.js';

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
        const violations = await seriousA11yViolations(page);
        if (violations.length > 0) found[screen.name] = violations;
      }
      expect(found).toEqual({});
      expectCleanPage(page);
      await context.close();
    }, 90_000);
  }
});
