import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { createUserWithRole } from '../helpers/roles.js';
import { expectCleanPage, openPage, seriousA11yViolations, signInWithToken, useChromium } from '../helpers/chromium.js';

/**
 * Every settings, staff and lists screen: where to start, then the sub-navigation links to follow
 * (moving inside the app, without loading it again), each with a text that shows it has loaded.
 */
const TOURS: { start: string; nav: string; screens: [string, string][] }[] = [
  {
    start: '/settings/profile',
    nav: 'Settings sections',
    screens: [
      ['Profile', 'Save profile'],
      ['Preferences', 'Save posting defaults'],
      ['Filters', 'You have no filters.'],
      ['Muted accounts', 'Nobody here.'],
      ['Blocked domains', 'No domains are blocked.'],
      ['Authorized apps', 'No apps are authorized.'],
      ['Instance', 'Save instance settings'],
      ['Export', 'People you follow'],
      ['Import', 'No imports yet.'],
      ['Moving accounts', 'No aliases.'],
    ],
  },
  {
    start: '/admin/approvals',
    nav: 'Administration sections',
    screens: [
      ['Sign-up approvals', 'No sign-ups are waiting.'],
      ['Accounts', 'Search accounts'],
      ['Reports', 'No open reports.'],
      ['Domains', 'No domains are allowed explicitly.'],
      ['Roles', 'Create role'],
      ['Announcements', 'No announcements.'],
      ['Webhooks', 'No webhooks.'],
    ],
  },
  { start: '/lists', nav: '', screens: [['', 'Members of Friends']] },
];

describe('accessibility of the settings, lists and staff screens (axe-core), both themes', () => {
  let inst: TestInstance;
  let owner: TestUser;
  const browser = useChromium();

  beforeAll(async () => {
    inst = await startInstance();
    owner = await createUserWithRole(inst, 'kim', 'owner');
    await owner.client.post('/api/v1/lists', { title: 'Friends' });
  });
  afterAll(async () => {
    await inst.close();
  });

  // Every screen in the light theme; in the dark one (colours are what changes) the first of each tour, to keep the file short.
  for (const scheme of ['light', 'dark'] as const) {
    it(`has no serious or critical violation in the ${scheme} theme`, { timeout: 90_000 }, async () => {
      const { context, page } = await openPage(browser(), { colorScheme: scheme });
      await signInWithToken(page, inst, owner);
      const found: Record<string, string[]> = {};
      for (const tour of TOURS) {
        await page.goto(`${inst.url}${tour.start}`);
        for (const [link, ready] of scheme === 'light' ? tour.screens : tour.screens.slice(0, 1)) {
          if (link) await page.getByRole('navigation', { name: tour.nav }).getByRole('link', { name: link, exact: true }).click();
          await page.getByText(ready, { exact: true }).first().waitFor({ timeout: 15_000 });
          const violations = await seriousA11yViolations(page);
          if (violations.length > 0) found[page.url()] = violations;
        }
      }
      expect(found).toEqual({});
      expectCleanPage(page);
      await context.close();
    });
  }
});
