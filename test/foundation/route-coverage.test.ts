import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { form, picture } from '../media/helpers.js';
import { startInstance, type TestInstance } from '../helpers/instance.js';
import { buildWorld, freshNotification, notificationRequests, ok, postStatusOf, TRENDING_URL, type World } from './route-coverage-world.js';

/**
 * Route coverage: every API method Mastodon documents (test/fixtures/mastodon-methods.json, listed
 * from its documentation by scripts/list-mastodon-methods.mjs) is answered. Each method gets a
 * valid request (a token with every scope, path parameters filled with real ids made for the
 * purpose, the parameters it needs), so a 404 can only mean the route is missing. The methods left
 * out are named below with their reasons. Response schemas are the business of each area's tests;
 * here only the route's existence is checked.
 */

interface DocMethod {
  method: string;
  path: string;
  page: string;
  heading: string;
  removed: boolean;
  deprecated: boolean;
}

const listed = JSON.parse(readFileSync(new URL('../fixtures/mastodon-methods.json', import.meta.url), 'utf8')) as { methods: DocMethod[] };

/**
 * The admin API (methods/admin/) is answered only to staff with the right permission and needs
 * records of its own; its own tests (test/admin/) drive every method. Here: each is routed.
 */
const ADMIN_REASON = 'the admin API, tested in test/admin/';
const V2_ALPHA = 'experimental grouped notifications of 4.3.0-beta.1, deprecated in beta.2 and gone from Mastodon since (the page is kept "for historical purposes only"); GET /api/v2/notifications replaced it';

/** Methods left out, besides the admin API, each with its reason. */
const EXCLUDED: Record<string, string> = {
  'POST /api/v1/notifications/dismiss': 'removed in Mastodon 3.0.0; POST /api/v1/notifications/:id/dismiss replaced it',
  'GET /api/proofs': 'removed in Mastodon 3.5.0 with the Keybase integration',
  'GET /api/v1/search': 'removed in Mastodon 3.0.0; GET /api/v2/search replaced it',
  'GET /api/v1/statuses/:id/card': 'removed in Mastodon 3.0.0; the card is part of the Status entity',
  'GET /api/v1/timelines/direct': 'removed in Mastodon 3.0.0 (its page says so under "Version history"); the conversations API replaced it',
  'GET /api/v2_alpha/notifications': V2_ALPHA,
  'GET /api/v2_alpha/notifications/:group_key': V2_ALPHA,
  'POST /api/v2_alpha/notifications/:group_key/dismiss': V2_ALPHA,
  'GET /api/v2_alpha/notifications/unread_count': V2_ALPHA,
};

/**
 * Methods that still answer 404 because another issue delivers them. They are called all the
 * same: once one answers, the test fails until its line here goes.
 */
const NOT_YET: Record<string, string> = {};

/** Paths the documentation gets wrong, with what Mastodon serves. */
const DOC_MISTAKES: Record<string, { path: string; why: string }> = {
  'GET /api/v1/:account_id/collections': {
    path: '/api/v1/accounts/:account_id/collections',
    why: "the page drops the `accounts/` segment; Mastodon's routes nest collections under accounts, as the OpenAPI description does",
  },
  'GET /api/v1/:account_id/in_collections': {
    path: '/api/v1/accounts/:account_id/in_collections',
    why: "the page drops the `accounts/` segment; Mastodon's routes nest in_collections under accounts, as the OpenAPI description does",
  },
};

/** Methods whose every valid request Hearth answers 404 by design; their routes are checked in the route table instead. */
const ANSWERS_404: Record<string, string> = {
  'GET /api/v1_alpha/async_refreshes/:id':
    'Hearth answers within the request and never sends a Mastodon-Async-Refresh header, so no refresh id exists and any id is unknown (404, as Mastodon answers an unknown id)',
};

interface Req {
  method?: string;
  path: string;
  json?: unknown;
  form?: Record<string, string>;
  multipart?: FormData;
  /** null: anonymous. */
  token?: string | null;
  /** A streaming endpoint: only the status line is read. */
  stream?: boolean;
}

type Builder = (w: World) => Partial<Req> | Promise<Partial<Req>>;

const acct = (w: World, name: keyof World['users']) => w.users[name].accountId;
const upload = async () => form({ file: { data: await picture(32, 32, 'png'), type: 'image/png', name: 'a.png' } });
const push = { subscription: { endpoint: 'https://push.example/ep', keys: { p256dh: 'BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4', auth: 'BTBZMqHH6r4Tts7J_aSIgg' } }, data: { alerts: { mention: true } } };

/** A new announcement, posted by Alice (the owner) through the admin method; its id. */
const announcement = async (w: World): Promise<string> => (await ok(w.alice, 'POST', '/api/v1/admin/announcements', { text: 'Coverage' })).body.id;

/**
 * The request of each method that needs more than a bare call: path parameters, query or body.
 * Methods without path parameters that are not here are called bare (POST with an empty body).
 */
const REQUESTS: Record<string, Builder> = {
  'POST /api/v1/accounts': (w) => ({ token: w.app.token, json: { username: 'newcomer', email: 'newcomer@example.test', password: 'a long password', agreement: true, locale: 'en' } }),
  'PATCH /api/v1/accounts/update_credentials': () => ({ json: { display_name: 'Alice' } }),
  'GET /api/v1/accounts/:id': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}` }),
  'GET /api/v1/accounts': (w) => ({ path: `/api/v1/accounts?id[]=${acct(w, 'bob')}` }),
  'GET /api/v1/accounts/:id/statuses': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/statuses` }),
  'GET /api/v1/accounts/:id/followers': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/followers` }),
  'GET /api/v1/accounts/:id/following': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/following` }),
  'GET /api/v1/accounts/:id/featured_tags': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/featured_tags` }),
  'GET /api/v1/accounts/:id/lists': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/lists` }),
  'POST /api/v1/accounts/:id/follow': (w) => ({ path: `/api/v1/accounts/${acct(w, 'dave')}/follow` }),
  'POST /api/v1/accounts/:id/unfollow': (w) => ({ path: `/api/v1/accounts/${acct(w, 'dave')}/unfollow` }),
  'POST /api/v1/accounts/:id/remove_from_followers': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/remove_from_followers` }),
  'POST /api/v1/accounts/:id/block': (w) => ({ path: `/api/v1/accounts/${acct(w, 'gina')}/block` }),
  'POST /api/v1/accounts/:id/unblock': (w) => ({ path: `/api/v1/accounts/${acct(w, 'gina')}/unblock` }),
  'POST /api/v1/accounts/:id/mute': (w) => ({ path: `/api/v1/accounts/${acct(w, 'gina')}/mute` }),
  'POST /api/v1/accounts/:id/unmute': (w) => ({ path: `/api/v1/accounts/${acct(w, 'gina')}/unmute` }),
  'POST /api/v1/accounts/:id/pin': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/pin` }),
  'POST /api/v1/accounts/:id/unpin': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/unpin` }),
  'GET /api/v1/accounts/:id/endorsements': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/endorsements` }),
  'POST /api/v1/accounts/:id/endorse': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/endorse` }),
  'POST /api/v1/accounts/:id/unendorse': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/unendorse` }),
  'POST /api/v1/accounts/:id/note': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/note`, json: { comment: 'met at the fair' } }),
  'GET /api/v1/accounts/relationships': (w) => ({ path: `/api/v1/accounts/relationships?id[]=${acct(w, 'bob')}` }),
  'GET /api/v1/accounts/familiar_followers': (w) => ({ path: `/api/v1/accounts/familiar_followers?id[]=${acct(w, 'bob')}` }),
  'GET /api/v1/accounts/search': () => ({ path: '/api/v1/accounts/search?q=bob' }),
  'GET /api/v1/accounts/lookup': () => ({ path: '/api/v1/accounts/lookup?acct=bob' }),
  'GET /api/v1/accounts/:id/identity_proofs': (w) => ({ path: `/api/v1/accounts/${acct(w, 'bob')}/identity_proofs` }),
  'POST /api/v1/announcements/:id/dismiss': async (w) => ({ path: `/api/v1/announcements/${await announcement(w)}/dismiss` }),
  'PUT /api/v1/announcements/:id/reactions/:name': async (w) => ({ path: `/api/v1/announcements/${await announcement(w)}/reactions/${encodeURIComponent('👍')}` }),
  'DELETE /api/v1/announcements/:id/reactions/:name': async (w) => {
    const path = `/api/v1/announcements/${await announcement(w)}/reactions/${encodeURIComponent('👍')}`;
    await ok(w.alice, 'PUT', path);
    return { path };
  },
  'GET /api/v1/annual_reports/:year': (w) => ({ path: `/api/v1/annual_reports/${w.year}` }),
  'GET /api/v1/annual_reports/:year/state': (w) => ({ path: `/api/v1/annual_reports/${w.year}/state` }),
  'POST /api/v1/annual_reports/:year/read': (w) => ({ path: `/api/v1/annual_reports/${w.year}/read` }),
  'POST /api/v1/annual_reports/:year/generate': (w) => ({ path: `/api/v1/annual_reports/${w.year}/generate` }),
  'POST /api/v1/apps': () => ({ json: { client_name: 'another', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob' } }),
  'GET /api/v1/apps/verify_credentials': (w) => ({ token: w.app.token }),
  'GET /api/v1_alpha/async_refreshes/:id': () => ({ path: '/api/v1_alpha/async_refreshes/ImNvdmVyYWdlIg' }),
  'POST /api/v1/collections': (w) => ({ json: { name: 'More people', account_ids: [acct(w, 'carol')] } }),
  'GET /api/v1/collections/:id': (w) => ({ path: `/api/v1/collections/${w.collectionId}` }),
  'GET /api/v1/accounts/:account_id/collections': (w) => ({ path: `/api/v1/accounts/${acct(w, 'alice')}/collections` }),
  'GET /api/v1/accounts/:account_id/in_collections': (w) => ({ path: `/api/v1/accounts/${acct(w, 'alice')}/in_collections` }),
  'PATCH /api/v1/collections/:id': (w) => ({ path: `/api/v1/collections/${w.collectionId}`, json: { description: 'People worth following' } }),
  'DELETE /api/v1/collections/:id': async (w) => ({ path: `/api/v1/collections/${(await ok(w.alice, 'POST', '/api/v1/collections', { name: 'Short-lived' })).body.collection.id}` }),
  'POST /api/v1/collections/:collection_id/items': (w) => ({ path: `/api/v1/collections/${w.collectionId}/items`, json: { account_id: acct(w, 'carol') } }),
  'DELETE /api/v1/collections/:collection_id/items/:id': async (w) => {
    const item = await ok(w.alice, 'POST', `/api/v1/collections/${w.collectionId}/items`, { account_id: acct(w, 'dave') });
    return { path: `/api/v1/collections/${w.collectionId}/items/${item.body.collection_item.id}` };
  },
  'POST /api/v1/collections/:collection_id/items/:id/revoke': (w) => ({ path: `/api/v1/collections/${w.collectionId}/items/${w.bobItemId}/revoke`, token: w.users.bob.token }),
  'DELETE /api/v1/conversations/:id': async (w) => {
    await postStatusOf(w.users.carol.client, { status: '@alice a word', visibility: 'direct' });
    return { path: `/api/v1/conversations/${(await ok(w.alice, 'GET', '/api/v1/conversations?limit=1')).body[0].id}` };
  },
  'POST /api/v1/conversations/:id/read': (w) => ({ path: `/api/v1/conversations/${w.conversationId}/read` }),
  'POST /api/v1/domain_blocks': () => ({ json: { domain: 'annoying.example' } }),
  'DELETE /api/v1/domain_blocks': () => ({ path: '/api/v1/domain_blocks?domain=annoying.example' }),
  'POST /api/v1/emails/confirmations': () => ({ json: {} }),
  'POST /api/v1/featured_tags': () => ({ json: { name: 'another' } }),
  'DELETE /api/v1/featured_tags/:id': async (w) => ({ path: `/api/v1/featured_tags/${(await ok(w.alice, 'POST', '/api/v1/featured_tags', { name: 'fleeting' })).body.id}` }),
  'GET /api/v2/filters/:id': (w) => ({ path: `/api/v2/filters/${w.filterId}` }),
  'POST /api/v2/filters': () => ({ json: { title: 'Another', context: ['public'] } }),
  'PUT /api/v2/filters/:id': (w) => ({ path: `/api/v2/filters/${w.filterId}`, json: { title: 'Renamed' } }),
  'DELETE /api/v2/filters/:id': async (w) => ({ path: `/api/v2/filters/${(await ok(w.alice, 'POST', '/api/v2/filters', { title: 'Gone', context: ['home'] })).body.id}` }),
  'GET /api/v2/filters/:filter_id/keywords': (w) => ({ path: `/api/v2/filters/${w.filterId}/keywords` }),
  'POST /api/v2/filters/:filter_id/keywords': (w) => ({ path: `/api/v2/filters/${w.filterId}/keywords`, json: { keyword: 'more' } }),
  'GET /api/v2/filters/keywords/:id': (w) => ({ path: `/api/v2/filters/keywords/${w.keywordId}` }),
  'PUT /api/v2/filters/keywords/:id': (w) => ({ path: `/api/v2/filters/keywords/${w.keywordId}`, json: { keyword: 'plot' } }),
  'DELETE /api/v2/filters/keywords/:id': async (w) => ({ path: `/api/v2/filters/keywords/${(await ok(w.alice, 'POST', `/api/v2/filters/${w.filterId}/keywords`, { keyword: 'gone' })).body.id}` }),
  'GET /api/v2/filters/:filter_id/statuses': (w) => ({ path: `/api/v2/filters/${w.filterId}/statuses` }),
  'POST /api/v2/filters/:filter_id/statuses': (w) => ({ path: `/api/v2/filters/${w.filterId}/statuses`, json: { status_id: w.aliceStatus } }),
  'GET /api/v2/filters/statuses/:id': (w) => ({ path: `/api/v2/filters/statuses/${w.filterStatusId}` }),
  'DELETE /api/v2/filters/statuses/:id': async (w) => {
    const status = await postStatusOf(w.alice, { status: 'Filter me' });
    return { path: `/api/v2/filters/statuses/${(await ok(w.alice, 'POST', `/api/v2/filters/${w.filterId}/statuses`, { status_id: status.id })).body.id}` };
  },
  'GET /api/v1/filters/:id': (w) => ({ path: `/api/v1/filters/${w.keywordId}` }),
  'POST /api/v1/filters': () => ({ json: { phrase: 'v1 phrase', context: ['home'] } }),
  'PUT /api/v1/filters/:id': (w) => ({ path: `/api/v1/filters/${w.keywordId}`, json: { phrase: 'v1 renamed', context: ['home'] } }),
  'DELETE /api/v1/filters/:id': async (w) => ({ path: `/api/v1/filters/${(await ok(w.alice, 'POST', '/api/v1/filters', { phrase: 'v1 gone', context: ['home'] })).body.id}` }),
  'POST /api/v1/follow_requests/:account_id/authorize': (w) => ({ path: `/api/v1/follow_requests/${acct(w, 'erin')}/authorize` }),
  'POST /api/v1/follow_requests/:account_id/reject': (w) => ({ path: `/api/v1/follow_requests/${acct(w, 'frank')}/reject` }),
  'GET /api/v2/notifications/:group_key': (w) => ({ path: `/api/v2/notifications/${encodeURIComponent(w.groupKey)}` }),
  'POST /api/v2/notifications/:group_key/dismiss': async (w) => ({ path: `/api/v2/notifications/${encodeURIComponent((await freshNotification(w, 'dave')).groupKey)}/dismiss` }),
  'GET /api/v2/notifications/:group_key/accounts': (w) => ({ path: `/api/v2/notifications/${encodeURIComponent(w.groupKey)}/accounts` }),
  'GET /api/v1/instance/terms_of_service/:date': (w) => ({ path: `/api/v1/instance/terms_of_service/${w.today}` }),
  'GET /api/v1/lists/:id': (w) => ({ path: `/api/v1/lists/${w.listId}` }),
  'POST /api/v1/lists': () => ({ json: { title: 'Another list' } }),
  'PUT /api/v1/lists/:id': (w) => ({ path: `/api/v1/lists/${w.listId}`, json: { title: 'Renamed list' } }),
  'DELETE /api/v1/lists/:id': async (w) => ({ path: `/api/v1/lists/${(await ok(w.alice, 'POST', '/api/v1/lists', { title: 'Gone' })).body.id}` }),
  'GET /api/v1/lists/:id/accounts': (w) => ({ path: `/api/v1/lists/${w.listId}/accounts` }),
  'POST /api/v1/lists/:id/accounts': (w) => ({ path: `/api/v1/lists/${w.listId}/accounts`, json: { account_ids: [acct(w, 'carol')] } }),
  'DELETE /api/v1/lists/:id/accounts': (w) => ({ path: `/api/v1/lists/${w.listId}/accounts?account_ids[]=${acct(w, 'bob')}` }),
  'GET /api/v1/markers': () => ({ path: '/api/v1/markers?timeline[]=home&timeline[]=notifications' }),
  'POST /api/v1/markers': (w) => ({ json: { home: { last_read_id: w.aliceStatus } } }),
  'POST /api/v2/media': async () => ({ multipart: await upload() }),
  'GET /api/v1/media/:id': (w) => ({ path: `/api/v1/media/${w.mediaId}` }),
  'DELETE /api/v1/media/:id': async (w) => ({ path: `/api/v1/media/${(await ok(w.alice, 'POST', '/api/v2/media', undefined, { multipart: await upload() })).body.id}` }),
  'PUT /api/v1/media/:id': (w) => ({ path: `/api/v1/media/${w.mediaId}`, json: { description: 'A gradient' } }),
  'POST /api/v1/media': async () => ({ multipart: await upload() }),
  'GET /api/v1/notifications/:id': (w) => ({ path: `/api/v1/notifications/${w.notificationId}` }),
  'POST /api/v1/notifications/:id/dismiss': async (w) => ({ path: `/api/v1/notifications/${(await freshNotification(w, 'erin')).id}/dismiss` }),
  'PATCH /api/v2/notifications/policy': () => ({ json: { for_not_following: 'filter' } }),
  'GET /api/v1/notifications/requests/:id': async (w) => ({ path: `/api/v1/notifications/requests/${(await notificationRequests(w, ['hana']))[0]}` }),
  'POST /api/v1/notifications/requests/:id/accept': async (w) => ({ path: `/api/v1/notifications/requests/${(await notificationRequests(w, ['hana']))[0]}/accept` }),
  'POST /api/v1/notifications/requests/:id/dismiss': async (w) => ({ path: `/api/v1/notifications/requests/${(await notificationRequests(w, ['ivan']))[0]}/dismiss` }),
  'POST /api/v1/notifications/requests/accept': async (w) => ({ json: { id: await notificationRequests(w, ['jo']) } }),
  'POST /api/v1/notifications/requests/dismiss': async (w) => ({ json: { id: await notificationRequests(w, ['kai']) } }),
  'GET /oauth/authorize': (w) => ({ path: `/oauth/authorize?response_type=code&client_id=${w.app.clientId}&redirect_uri=urn:ietf:wg:oauth:2.0:oob&scope=read`, token: null }),
  'POST /oauth/token': (w) => ({ token: null, form: { grant_type: 'client_credentials', client_id: w.app.clientId, client_secret: w.app.clientSecret, scope: 'read' } }),
  'POST /oauth/revoke': async (w) => {
    const token = await ok(w.inst.anon, 'POST', '/oauth/token', undefined, { form: { grant_type: 'client_credentials', client_id: w.app.clientId, client_secret: w.app.clientSecret, scope: 'read' } });
    return { token: null, form: { client_id: w.app.clientId, client_secret: w.app.clientSecret, token: token.body.access_token } };
  },
  'GET /api/oembed': (w) => ({ path: `/api/oembed?url=${encodeURIComponent(w.aliceStatusUrl)}`, token: null }),
  'GET /api/v1/polls/:id': (w) => ({ path: `/api/v1/polls/${w.pollId}` }),
  'POST /api/v1/polls/:id/votes': (w) => ({ path: `/api/v1/polls/${w.pollId}/votes`, json: { choices: ['0'] }, token: w.users.bob.token }),
  'PATCH /api/v1/profile': () => ({ json: { display_name: 'Alice A.' } }),
  'POST /api/v1/push/subscription': () => ({ json: push }),
  'PUT /api/v1/push/subscription': () => ({ json: { data: { alerts: { mention: false } } } }),
  'POST /api/v1/reports': (w) => ({ json: { account_id: acct(w, 'bob'), status_ids: [w.bobStatus], comment: 'Testing reports' } }),
  'GET /api/v1/scheduled_statuses/:id': (w) => ({ path: `/api/v1/scheduled_statuses/${w.scheduledId}` }),
  'PUT /api/v1/scheduled_statuses/:id': (w) => ({ path: `/api/v1/scheduled_statuses/${w.scheduledId}`, json: { scheduled_at: new Date(Date.now() + 2 * 86_400_000).toISOString() } }),
  'DELETE /api/v1/scheduled_statuses/:id': async (w) => ({
    path: `/api/v1/scheduled_statuses/${(await ok(w.alice, 'POST', '/api/v1/statuses', { status: 'Never', scheduled_at: new Date(Date.now() + 86_400_000).toISOString() })).body.id}`,
  }),
  'GET /api/v2/search': () => ({ path: '/api/v2/search?q=bob' }),
  'POST /api/v1/statuses': () => ({ json: { status: 'A coverage post' } }),
  'GET /api/v1/statuses/:id': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}` }),
  'GET /api/v1/statuses': (w) => ({ path: `/api/v1/statuses?id[]=${w.aliceStatus}` }),
  'DELETE /api/v1/statuses/:id': async (w) => ({ path: `/api/v1/statuses/${(await postStatusOf(w.alice, { status: 'Gone soon' })).id}` }),
  'GET /api/v1/statuses/:id/context': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/context` }),
  'POST /api/v1/statuses/:id/translate': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/translate`, json: { lang: 'de' } }),
  'GET /api/v1/statuses/:id/reblogged_by': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/reblogged_by` }),
  'GET /api/v1/statuses/:id/quotes': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/quotes` }),
  'GET /api/v1/statuses/:id/favourited_by': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/favourited_by` }),
  'POST /api/v1/statuses/:id/favourite': (w) => ({ path: `/api/v1/statuses/${w.bobStatus}/favourite` }),
  'POST /api/v1/statuses/:id/unfavourite': (w) => ({ path: `/api/v1/statuses/${w.bobStatus}/unfavourite` }),
  'POST /api/v1/statuses/:id/reblog': (w) => ({ path: `/api/v1/statuses/${w.bobStatus}/reblog` }),
  'POST /api/v1/statuses/:id/unreblog': (w) => ({ path: `/api/v1/statuses/${w.bobStatus}/unreblog` }),
  'POST /api/v1/statuses/:id/bookmark': (w) => ({ path: `/api/v1/statuses/${w.bobStatus}/bookmark` }),
  'POST /api/v1/statuses/:id/unbookmark': (w) => ({ path: `/api/v1/statuses/${w.bobStatus}/unbookmark` }),
  'POST /api/v1/statuses/:id/quotes/:quoting_status_id/revoke': async (w) => {
    const quote = await w.users.bob.client.request('POST', '/api/v1/statuses', { json: { status: 'Quoting Alice', quoted_status_id: w.aliceStatus }, skipSchema: true });
    return { path: `/api/v1/statuses/${w.aliceStatus}/quotes/${quote.status === 200 ? quote.body.id : '1'}/revoke` };
  },
  'POST /api/v1/statuses/:id/mute': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/mute` }),
  'POST /api/v1/statuses/:id/unmute': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/unmute` }),
  'POST /api/v1/statuses/:id/pin': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/pin` }),
  'POST /api/v1/statuses/:id/unpin': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/unpin` }),
  'PUT /api/v1/statuses/:id': (w) => ({ path: `/api/v1/statuses/${w.editable}`, json: { status: 'Edited' } }),
  'PUT /api/v1/statuses/:id/interaction_policy': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/interaction_policy`, json: { quote_approval_policy: 'followers' } }),
  'GET /api/v1/statuses/:id/history': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/history` }),
  'GET /api/v1/statuses/:id/source': (w) => ({ path: `/api/v1/statuses/${w.aliceStatus}/source` }),
  'GET /api/v1/streaming/user': () => ({ stream: true }),
  'GET /api/v1/streaming/user/notification': () => ({ stream: true }),
  'GET /api/v1/streaming/public': () => ({ stream: true }),
  'GET /api/v1/streaming/public/local': () => ({ stream: true }),
  'GET /api/v1/streaming/public/remote': () => ({ stream: true }),
  'GET /api/v1/streaming/hashtag': () => ({ path: '/api/v1/streaming/hashtag?tag=coverage', stream: true }),
  'GET /api/v1/streaming/hashtag/local': () => ({ path: '/api/v1/streaming/hashtag/local?tag=coverage', stream: true }),
  'GET /api/v1/streaming/list': (w) => ({ path: `/api/v1/streaming/list?list=${w.listId}`, stream: true }),
  'GET /api/v1/streaming/direct': () => ({ stream: true }),
  'DELETE /api/v1/suggestions/:account_id': (w) => ({ path: `/api/v1/suggestions/${acct(w, 'carol')}` }),
  'GET /api/v1/tags/:name': () => ({ path: '/api/v1/tags/coverage' }),
  'POST /api/v1/tags/:name/follow': () => ({ path: '/api/v1/tags/coverage/follow' }),
  'POST /api/v1/tags/:name/unfollow': () => ({ path: '/api/v1/tags/coverage/unfollow' }),
  'POST /api/v1/tags/:id/feature': () => ({ path: '/api/v1/tags/featurable/feature' }),
  'POST /api/v1/tags/:id/unfeature': () => ({ path: '/api/v1/tags/featurable/unfeature' }),
  'GET /api/v1/timelines/tag/:hashtag': () => ({ path: '/api/v1/timelines/tag/coverage' }),
  'GET /api/v1/timelines/link': () => ({ path: `/api/v1/timelines/link?url=${encodeURIComponent(TRENDING_URL)}` }),
  'GET /api/v1/timelines/list/:list_id': (w) => ({ path: `/api/v1/timelines/list/${w.listId}` }),
};

/** A method's key as the tables above name it, after correcting the documentation's mistakes. */
function keyOf(m: DocMethod): { key: string; path: string } {
  const fixed = DOC_MISTAKES[`${m.method} ${m.path}`];
  const path = fixed?.path ?? m.path;
  return { key: `${m.method} ${path}`, path };
}

/** Route templates with parameters of any name made comparable (`/a/:id` and `/a/:name` are the same route). */
function shape(path: string): string {
  return path.toLowerCase().replace(/:[a-z_]+/g, ':');
}

async function send(w: World, method: string, req: Req): Promise<number> {
  const token = req.token === undefined ? w.users.alice.token : req.token;
  if (req.stream) {
    const controller = new AbortController();
    const res = await fetch(new URL(req.path, w.inst.url), { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: controller.signal });
    controller.abort();
    return res.status;
  }
  const res = await w.alice.request(method, req.path, {
    token,
    skipSchema: true,
    ...(req.json !== undefined ? { json: req.json } : {}),
    ...(req.form ? { form: req.form } : {}),
    ...(req.multipart ? { multipart: req.multipart } : {}),
    ...(req.json === undefined && !req.form && !req.multipart && method !== 'GET' && method !== 'DELETE' ? { json: {} } : {}),
  });
  return res.status;
}

describe('route coverage of the documented Mastodon API', () => {
  let inst: TestInstance;
  let w: World;
  beforeAll(async () => {
    inst = await startInstance({ registrations: 'open' });
    w = await buildWorld(inst);
  }, 120_000);
  afterAll(async () => {
    await inst?.close();
  });

  const all = listed.methods;
  const nonAdmin = all.filter((m) => !m.page.startsWith('methods/admin/'));

  it('lists the documentation, and every exclusion names a listed method', () => {
    expect(all.length).toBeGreaterThan(250);
    expect(all.length - nonAdmin.length, ADMIN_REASON).toBeGreaterThan(40);
    const keys = new Set(all.map((m) => `${m.method} ${m.path}`));
    for (const key of [...Object.keys(EXCLUDED), ...Object.keys(NOT_YET), ...Object.keys(DOC_MISTAKES)]) expect(keys.has(key), key).toBe(true);
    // A method the documentation marks removed is left out only with a reason written here.
    expect(nonAdmin.filter((m) => m.removed && !EXCLUDED[`${m.method} ${m.path}`]).map((m) => `${m.method} ${m.path}`)).toEqual([]);
  });

  it('answers every documented method (no 404 for a valid request)', async () => {
    const missing: string[] = [];
    const without: string[] = [];
    const answeredNow: string[] = [];
    const routes = new Set(inst.app.routes.map((r) => `${r.method.toUpperCase()} ${shape(r.path)}`));
    for (const m of nonAdmin) {
      if (EXCLUDED[`${m.method} ${m.path}`]) continue;
      const { key, path } = keyOf(m);
      if (path.includes(':') && !REQUESTS[key]) {
        without.push(key);
        continue;
      }
      const req = { path, ...(await (REQUESTS[key]?.(w) ?? {})) };
      const status = await send(w, m.method, req);
      if (ANSWERS_404[key]) {
        expect(routes.has(`${m.method} ${shape(path)}`), `${key}: ${ANSWERS_404[key]}`).toBe(true);
        expect(status, key).toBe(404);
        continue;
      }
      if (NOT_YET[key]) {
        if (status !== 404) answeredNow.push(`${key} answers ${status}: remove it from NOT_YET`);
        continue;
      }
      if (status === 404) missing.push(`${key} (${m.page})`);
    }
    expect(without, 'methods with path parameters need a request in REQUESTS').toEqual([]);
    expect(missing).toEqual([]);
    expect(answeredNow).toEqual([]);
  }, 180_000);

  it('routes every documented admin method (test/admin/ drives each with staff of every role)', () => {
    const routes = new Set(inst.app.routes.map((r) => `${r.method.toUpperCase()} ${shape(r.path)}`));
    const admin = all.filter((m) => m.page.startsWith('methods/admin/') && !m.removed);
    expect(admin.length).toBeGreaterThan(40);
    const unrouted = admin.map((m) => keyOf(m)).filter(({ key, path }) => !routes.has(`${key.split(' ')[0]} ${shape(path)}`)).map(({ key }) => key);
    expect(unrouted).toEqual([]);
  });
});
