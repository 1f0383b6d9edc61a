import { expect } from 'vitest';
import { currentCampaign } from '../../api/core/annual-reports/reports.js';
import { setInstanceSetting, setTermsOfService } from '../../api/core/instance/settings.js';
import { ALL_SCOPES } from '../../api/core/oauth/scopes.js';
import { resetClock, setClockTo } from '../../api/util/clock.js';
import { newId } from '../../api/util/ids.js';
import type { TestClient, TestResponse } from '../helpers/client.js';
import type { TestInstance, TestUser } from '../helpers/instance.js';
import { form, picture } from '../media/helpers.js';

/**
 * The records the route-coverage test's requests name: real ids of real statuses, lists, filters,
 * media, notifications and so on, made through the API (a preview card, which the instance makes
 * by fetching a page, is put in the database directly), so that every request is a valid one and
 * a 404 can only mean a missing route.
 */

export const NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'gina', 'hana', 'ivan', 'jo', 'kai'] as const;
export type Name = (typeof NAMES)[number];

export const TRENDING_URL = 'https://news.example/coverage-article';

export interface World {
  inst: TestInstance;
  users: Record<Name, TestUser>;
  /** Alice's token has every scope; she is the owner. */
  alice: TestClient;
  year: number;
  today: string;
  aliceStatus: string;
  aliceStatusUrl: string;
  editable: string;
  bobStatus: string;
  pollId: string;
  listId: string;
  filterId: string;
  keywordId: string;
  filterStatusId: string;
  mediaId: string;
  scheduledId: string;
  featuredTagName: string;
  collectionId: string;
  bobItemId: string;
  conversationId: string;
  notificationId: string;
  groupKey: string;
  app: { clientId: string; clientSecret: string; token: string };
}

/** Sends a set-up request and expects a 2xx answer (schemas are each area's own tests' business). */
export async function ok(client: TestClient, method: string, path: string, json?: unknown, extra: { multipart?: FormData; form?: Record<string, string> } = {}): Promise<TestResponse> {
  const res = await client.request(method, path, { ...(json === undefined ? {} : { json }), ...extra, skipSchema: true });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res;
}

async function post(client: TestClient, json: Record<string, unknown>): Promise<{ id: string; url: string; poll?: { id: string } }> {
  return (await ok(client, 'POST', '/api/v1/statuses', json)).body;
}

/** Puts a link card on statuses, as the card fetcher would after reading the linked page. */
function seedCard(inst: TestInstance, url: string, statusIds: readonly string[]): void {
  const id = newId();
  const at = Date.now();
  inst.deps.db
    .query(
      `INSERT INTO preview_cards (id, url, title, description, type, provider_name, created_at, updated_at)
       VALUES (@id, @url, 'A coverage article', 'What it says', 'link', 'News', @at, @at)`,
    )
    .run({ id, url, at });
  for (const statusId of statusIds) {
    inst.deps.db.query('INSERT INTO preview_cards_statuses (status_id, preview_card_id, url) VALUES (?, ?, ?)').run(statusId, id, url);
  }
}

/** An application and a client-credentials token of it (for sign-up and the app methods). */
async function makeApp(inst: TestInstance): Promise<World['app']> {
  const app = await ok(inst.anon, 'POST', '/api/v1/apps', { client_name: 'coverage', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read write follow push' });
  const token = await ok(inst.anon, 'POST', '/oauth/token', undefined, {
    form: { grant_type: 'client_credentials', client_id: app.body.client_id, client_secret: app.body.client_secret, scope: 'read write follow push' },
  });
  return { clientId: app.body.client_id, clientSecret: app.body.client_secret, token: token.body.access_token };
}

/** Generates Alice's annual report, moving the clock into this year's campaign if need be. */
async function generateReport(w: Pick<World, 'alice' | 'year'>): Promise<void> {
  const at = Date.now();
  if (currentCampaign(at) !== w.year) setClockTo(Date.UTC(w.year, 11, 15, 12));
  try {
    await ok(w.alice, 'POST', `/api/v1/annual_reports/${w.year}/generate`);
  } finally {
    resetClock();
  }
  const state = await ok(w.alice, 'GET', `/api/v1/annual_reports/${w.year}/state`);
  expect(state.body.state).toBe('available');
}

/** Builds the world every coverage request draws its ids from. */
export async function buildWorld(inst: TestInstance): Promise<World> {
  const users = {} as Record<Name, TestUser>;
  for (const name of NAMES) users[name] = await inst.createUser(name, { role: name === 'alice' ? 'owner' : 'user', scopes: ALL_SCOPES.join(' ') });
  const alice = users.alice.client;
  const now = new Date();
  const year = now.getUTCFullYear();
  const today = now.toISOString().slice(0, 10);

  for (const name of ['alice', 'bob', 'carol', 'dave'] as const) await ok(users[name].client, 'PATCH', '/api/v1/accounts/update_credentials', { discoverable: true });
  await ok(alice, 'POST', `/api/v1/accounts/${users.bob.accountId}/follow`);
  await ok(alice, 'POST', `/api/v1/accounts/${users.carol.accountId}/follow`);
  await ok(users.bob.client, 'POST', `/api/v1/accounts/${users.alice.accountId}/follow`);

  const aliceStatusEntity = await post(alice, { status: 'Hello #coverage', visibility: 'public' });
  const aliceStatus = aliceStatusEntity.id;
  // Before anything that a moved clock could set off (scheduled statuses, polls closing).
  await generateReport({ alice, year });

  const editable = (await post(alice, { status: 'To be edited' })).id;
  const pollId = (await post(alice, { status: 'Which?', poll: { options: ['one', 'two'], expires_in: 86_400 } })).poll?.id ?? '';
  const bobStatus = (await post(users.bob.client, { status: `Hi @alice #coverage`, visibility: 'public' })).id;
  const carolStatus = (await post(users.carol.client, { status: 'Me too #coverage', visibility: 'public' })).id;
  seedCard(inst, TRENDING_URL, [bobStatus, carolStatus]);
  await ok(users.bob.client, 'POST', `/api/v1/statuses/${aliceStatus}/favourite`);
  await ok(users.carol.client, 'POST', `/api/v1/statuses/${aliceStatus}/reblog`);
  await post(users.bob.client, { status: '@alice just between us', visibility: 'direct' });

  // Alice locks her account; Erin and Frank then ask to follow her.
  await ok(alice, 'PATCH', '/api/v1/accounts/update_credentials', { locked: true });
  await ok(users.erin.client, 'POST', `/api/v1/accounts/${users.alice.accountId}/follow`);
  await ok(users.frank.client, 'POST', `/api/v1/accounts/${users.alice.accountId}/follow`);

  const listId = (await ok(alice, 'POST', '/api/v1/lists', { title: 'Coverage' })).body.id;
  await ok(alice, 'POST', `/api/v1/lists/${listId}/accounts`, { account_ids: [users.bob.accountId] });
  const filter = await ok(alice, 'POST', '/api/v2/filters', { title: 'Coverage', context: ['home'], keywords_attributes: [{ keyword: 'spoilers' }] });
  const filterStatus = await ok(alice, 'POST', `/api/v2/filters/${filter.body.id}/statuses`, { status_id: bobStatus });
  const media = await ok(alice, 'POST', '/api/v2/media', undefined, { multipart: form({ file: { data: await picture(32, 32, 'png'), type: 'image/png', name: 'a.png' } }) });
  const scheduled = await ok(alice, 'POST', '/api/v1/statuses', { status: 'Later', scheduled_at: new Date(Date.now() + 86_400_000).toISOString() });
  await ok(alice, 'POST', '/api/v1/featured_tags', { name: 'coverage' });
  const collection = await ok(alice, 'POST', '/api/v1/collections', { name: 'Good people', account_ids: [users.bob.accountId] });
  setTermsOfService(inst.deps, 'Be kind.', today);
  setInstanceSetting(inst.deps, 'show_domain_blocks', 'all');

  const conversations = await ok(alice, 'GET', '/api/v1/conversations');
  // Favourites: the follow requests' notifications go when the requests are answered.
  const notifications = await ok(alice, 'GET', '/api/v1/notifications?types[]=favourite');
  const groups = await ok(alice, 'GET', '/api/v2/notifications?types[]=favourite');

  return {
    inst,
    users,
    alice,
    year,
    today,
    aliceStatus,
    aliceStatusUrl: aliceStatusEntity.url,
    editable,
    bobStatus,
    pollId,
    listId,
    filterId: filter.body.id,
    keywordId: filter.body.keywords[0].id,
    filterStatusId: filterStatus.body.id,
    mediaId: media.body.id,
    scheduledId: scheduled.body.id,
    featuredTagName: 'coverage',
    collectionId: collection.body.collection.id,
    bobItemId: collection.body.collection.items[0].id,
    conversationId: conversations.body[0].id,
    notificationId: notifications.body[0].id,
    groupKey: groups.body.notification_groups[0].group_key,
    app: await makeApp(inst),
  };
}

/** A new status of Alice's, favourited by `fan`: a fresh notification (and notification group) for her. */
export async function freshNotification(w: World, fan: Name): Promise<{ id: string; groupKey: string }> {
  const status = await post(w.alice, { status: `For ${fan}` });
  await ok(w.users[fan].client, 'POST', `/api/v1/statuses/${status.id}/favourite`);
  const list = await ok(w.alice, 'GET', '/api/v1/notifications?types[]=favourite&limit=1');
  const groups = await ok(w.alice, 'GET', '/api/v2/notifications?types[]=favourite&limit=1');
  return { id: list.body[0].id, groupKey: groups.body.notification_groups[0].group_key };
}

/**
 * Notification requests for Alice (filtered notifications): her policy filters accounts she does
 * not follow, and each of `from` mentions her. Missing ones (when filtering is not there) are
 * stood in for by an id that names nothing.
 */
export async function notificationRequests(w: World, from: readonly Name[]): Promise<string[]> {
  await w.alice.request('PATCH', '/api/v2/notifications/policy', { json: { for_not_following: 'filter' }, skipSchema: true });
  for (const name of from) await post(w.users[name].client, { status: `@alice hello from ${name}`, visibility: 'public' });
  const res = await w.alice.request('GET', '/api/v1/notifications/requests', { skipSchema: true });
  const byAccount = new Map<string, string>();
  if (res.status === 200 && Array.isArray(res.body)) for (const r of res.body as { id: string; account: { id: string } }[]) byAccount.set(r.account.id, r.id);
  return from.map((name) => byAccount.get(w.users[name].accountId) ?? '1');
}

export { post as postStatusOf };
