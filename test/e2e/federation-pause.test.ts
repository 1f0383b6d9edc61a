import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectCleanPage, openPage, signInWithToken, useChromium } from '../helpers/chromium.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { freePort } from '../federation/helpers.js';

/*
 * The Connection screen's federation switch (the desktop tray has the same): the owner pauses and
 * resumes federation of an instance with a public origin; a refused change is undone and said.
 */

describe('pausing federation from the Connection screen', () => {
  const browser = useChromium();
  let inst: TestInstance;
  let kim: TestUser;
  beforeAll(async () => {
    const port = await freePort('127.0.0.1');
    inst = await startInstance({ port, origin: `http://127.0.0.1:${port}`, federationAllowLoopback: true });
    kim = await inst.createUser('kim', { role: 'owner', scopes: 'read write follow push' });
  });
  afterAll(async () => {
    await inst?.close();
  });

  const pausedNow = async () => ((await kim.client.get('/api/hearth/federation', { skipSchema: true })).body as { paused: boolean }).paused;

  it('pauses and resumes, as the instance then says', async () => {
    const { context, page } = await openPage(browser());
    page.setDefaultTimeout(15_000);
    await signInWithToken(page, inst, kim);
    await page.goto(`${inst.url}/connection`);
    const card = page.getByRole('region', { name: 'Federation' });
    await card.getByText('Federation is on: your posts go out to other servers and theirs come in.').waitFor();

    await card.getByRole('button', { name: 'Pause federation' }).click();
    await card.getByText(/Federation is paused since .*Nothing goes out/).waitFor();
    await card.getByRole('button', { name: 'Resume federation' }).waitFor();
    expect(await pausedNow()).toBe(true);
    // A reload shows the stored state.
    await page.reload();
    await card.getByRole('button', { name: 'Resume federation' }).waitFor();

    await card.getByRole('button', { name: 'Resume federation' }).click();
    await card.getByRole('button', { name: 'Pause federation' }).waitFor();
    await expectEventually(async () => !(await pausedNow()));
    expectCleanPage(page);
    await context.close();
  });

  it('a change the instance refuses is undone, with a toast that says why', async () => {
    const { context, page } = await openPage(browser());
    page.setDefaultTimeout(15_000);
    // A session whose token may read the switch but not change it.
    await signInWithToken(page, inst, kim, inst.tokenFor(kim, 'read'));
    await page.goto(`${inst.url}/connection`);
    const card = page.getByRole('region', { name: 'Federation' });
    await card.getByRole('button', { name: 'Pause federation' }).click();
    await page.getByText(/Pausing federation failed: This action is outside the authorized scopes/).waitFor();
    await card.getByRole('button', { name: 'Pause federation' }).waitFor();
    await card.getByText('Federation is on: your posts go out to other servers and theirs come in.').waitFor();
    expect(await pausedNow()).toBe(false);
    expectCleanPage(page);
    await context.close();
  });
});

async function expectEventually(check: () => Promise<boolean>): Promise<void> {
  const until = Date.now() + 15_000;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in 15 s');
    await new Promise((r) => setTimeout(r, 100));
  }
}
