import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { issueToken } from '../../api/core/oauth/tokens.js';
import { streamingHub } from '../../api/streaming/index.js';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';
import { closeSockets, follow, openSocket, post, refusedUpgrade, settle, wsUrl } from './helpers.js';

describe('streaming over WebSocket: connection, authorization, messages', () => {
  let inst: TestInstance;
  let alice: TestUser;
  let bob: TestUser;
  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
    bob = await inst.createUser('bob');
    await follow(bob.client, alice.accountId);
  });
  afterEach(() => closeSockets());
  afterAll(async () => {
    await inst.close();
  });

  it('accepts the token in the Authorization header, the access_token parameter or Sec-WebSocket-Protocol', async () => {
    const byHeader = await openSocket(inst, bob.token, { query: 'stream=user' });
    const byQuery = await openSocket(inst, null, { query: `stream=user&access_token=${bob.token}` });
    const byProtocol = await openSocket(inst, null, { query: 'stream=user', protocol: bob.token });
    // The protocol a client offers is the one the server selects (browsers insist on that).
    expect(byProtocol.ws.protocol).toBe(bob.token);
    const status = await post(alice.client, { status: 'hello followers' });
    for (const socket of [byHeader, byQuery, byProtocol]) {
      const event = await socket.next((e) => e.event === 'update');
      expect(event.stream).toEqual(['user']);
      expect(typeof event.raw).toBe('string');
      expect(event.payload.id).toBe(status.id);
      expect(event.payload.content).toBe(status.content);
    }
  });

  it('refuses the upgrade without a token, with an unknown one, or an app-only one (401 with a JSON error)', async () => {
    expect(await refusedUpgrade(inst, null, { query: 'stream=public' })).toEqual({ status: 401, body: { error: 'Missing access token' } });
    expect(await refusedUpgrade(inst, 'not-a-token', { query: 'stream=public' })).toEqual({ status: 401, body: { error: 'Invalid access token' } });
    expect(await refusedUpgrade(inst, null, { query: 'access_token=nope' })).toEqual({ status: 401, body: { error: 'Invalid access token' } });
    const appToken = issueToken(inst.deps, { applicationId: null, userId: null, scopes: ['read'] }).accessToken;
    expect(await refusedUpgrade(inst, appToken)).toEqual({ status: 401, body: { error: 'Invalid access token' } });
  });

  it('refuses a Host that is not allowed (DNS rebinding), as the HTTP API does', async () => {
    expect(await refusedUpgrade(inst, bob.token, { headers: { host: 'evil.example' } })).toEqual({ status: 403, body: { error: 'This host name is not allowed' } });
  });

  it('subscribes to several streams on one connection, each event naming its stream', async () => {
    const socket = await openSocket(inst, bob.token);
    await socket.subscribe('user');
    await socket.subscribe('public');
    await socket.subscribe('public:local');
    await socket.subscribe('hashtag', { tag: 'Cats' });
    // A repeated subscribe is ignored (one subscription, one event).
    await socket.subscribe('public');
    expect(streamingHub(inst.deps)?.subscriptionCount).toBe(4);
    const status = await post(alice.client, { status: 'about #cats' });
    const of = (stream: string[]) => socket.next((e) => e.event === 'update' && JSON.stringify(e.stream) === JSON.stringify(stream) && e.payload.id === status.id);
    await of(['user']);
    await of(['public']);
    await of(['public:local']);
    // The stream of a hashtag names the tag as the client wrote it.
    await of(['hashtag', 'Cats']);
    await settle();
    expect(socket.matching((e) => e.payload?.id === status.id)).toHaveLength(4);
  });

  it('unsubscribes: no more events of that stream, the others go on', async () => {
    const socket = await openSocket(inst, bob.token, { query: 'stream=public' });
    await socket.subscribe('user');
    socket.send({ type: 'unsubscribe', stream: 'public' });
    await socket.sync();
    const status = await post(alice.client, { status: 'after unsubscribe' });
    await socket.next((e) => e.event === 'update' && e.payload.id === status.id);
    await settle();
    expect(socket.matching((e) => JSON.stringify(e.stream) === '["public"]')).toEqual([]);
    // Unsubscribing from a stream one does not follow changes nothing and is no error.
    socket.send({ type: 'unsubscribe', stream: 'direct' });
    await socket.sync();
    expect(socket.errors).toEqual([]);
  });

  it('answers bad messages with an error on the socket; the connection and the server stay up', async () => {
    const socket = await openSocket(inst, bob.token);
    const cases: [unknown, string, number][] = [
      ['{not json', 'Invalid JSON message', 400],
      ['[1,2]', 'Invalid message: expected a JSON object', 400],
      ['"subscribe"', 'Invalid message: expected a JSON object', 400],
      [{ type: 'subscribe', stream: 'nope' }, 'Unknown stream type', 400],
      [{ type: 'subscribe' }, 'Unknown stream type', 400],
      [{ type: 'subscribe', stream: 42 }, 'Unknown stream type', 400],
      [{ type: 'subscribe', stream: 'hashtag' }, 'Missing tag name parameter', 400],
      [{ type: 'subscribe', stream: 'hashtag:local', tag: '  ' }, 'Missing tag name parameter', 400],
      [{ type: 'subscribe', stream: 'list' }, 'Missing list name parameter', 400],
      [{ type: 'subscribe', stream: 'list', list: '12345' }, 'Not authorized to stream this list', 401],
      [{ type: 'subscribe', stream: 'list', list: 'abc' }, 'Not authorized to stream this list', 401],
      [{ type: 'unsubscribe', stream: 'bogus' }, 'Unknown stream type', 400],
      [{ type: 'dance', stream: 'user' }, 'Unknown message type: expected subscribe or unsubscribe', 400],
    ];
    for (const [i, [message, error, status]] of cases.entries()) {
      socket.send(message);
      expect(await socket.error(i)).toEqual({ error, status });
    }
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    // Still works.
    await socket.subscribe('user');
    const status = await post(alice.client, { status: 'still alive' });
    await socket.next((e) => e.payload?.id === status.id);
    const health = await fetch(`${inst.url}/api/v1/streaming/health`);
    expect(await health.text()).toBe('OK');
  });

  it('sends the error of a bad stream in the query on the opened socket', async () => {
    const socket = await openSocket(inst, bob.token, { query: 'stream=timeline' });
    expect(await socket.error()).toEqual({ error: 'Unknown stream type', status: 400 });
    expect(socket.ws.readyState).toBe(WebSocket.OPEN);
  });

  it('closes the connection on a binary message (text frames only, as Mastodon)', async () => {
    const socket = await openSocket(inst, bob.token);
    socket.ws.send(Buffer.from([1, 2, 3]), { binary: true });
    await socket.until(() => socket.closed);
    expect(socket.closed?.code).toBe(1003);
  });

  it('checks scopes per stream: read:statuses for timelines, read:notifications for notifications (401 otherwise)', async () => {
    const statusesOnly = await openSocket(inst, inst.tokenFor(bob, 'read:statuses'));
    await statusesOnly.subscribe('public');
    await statusesOnly.subscribe('user');
    await statusesOnly.subscribe('direct');
    statusesOnly.send({ type: 'subscribe', stream: 'user:notification' });
    expect(await statusesOnly.error()).toEqual({ error: 'Access token does not have the required scopes', status: 401 });

    const notificationsOnly = await openSocket(inst, inst.tokenFor(bob, 'read:notifications'));
    await notificationsOnly.subscribe('user:notification');
    notificationsOnly.send({ type: 'subscribe', stream: 'public' });
    expect(await notificationsOnly.error()).toEqual({ error: 'Access token does not have the required scopes', status: 401 });

    const writeOnly = await openSocket(inst, inst.tokenFor(bob, 'write'));
    writeOnly.send({ type: 'subscribe', stream: 'user' });
    expect(await writeOnly.error()).toEqual({ error: 'Access token does not have the required scopes', status: 401 });
  });

  it('ends the connections of a token when it is revoked (POST /oauth/revoke), and refuses it afterwards', async () => {
    const app = await inst.anon.post('/api/v1/apps', { client_name: 'streamer', redirect_uris: 'urn:ietf:wg:oauth:2.0:oob', scopes: 'read' });
    expect(app.status).toBe(200);
    const token = issueToken(inst.deps, { applicationId: app.body.id, userId: bob.userId, scopes: ['read'] }).accessToken;
    const socket = await openSocket(inst, token, { query: 'stream=user' });
    const other = await openSocket(inst, bob.token, { query: 'stream=user' });
    const res = await inst.anon.post('/oauth/revoke', undefined, { form: { client_id: app.body.client_id, client_secret: app.body.client_secret, token } });
    expect(res.status).toBe(200);
    await socket.until(() => socket.closed);
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    expect(await refusedUpgrade(inst, token)).toEqual({ status: 401, body: { error: 'Invalid access token' } });
  });

  it('ends the connections of an account once it is suspended (moderation announces it with account.updated)', async () => {
    const mallory = await inst.createUser('mallory');
    const socket = await openSocket(inst, mallory.token, { query: 'stream=user' });
    const other = await openSocket(inst, bob.token, { query: 'stream=user' });
    inst.deps.db.query('UPDATE accounts SET suspended_at = @at WHERE id = @id').run({ id: mallory.accountId, at: Date.now() });
    inst.deps.events.emit('account.updated', { accountId: mallory.accountId });
    await socket.until(() => socket.closed);
    // Someone else's update changes nothing for the others.
    inst.deps.events.emit('account.updated', { accountId: bob.accountId });
    await settle();
    expect(other.ws.readyState).toBe(WebSocket.OPEN);
    expect(await refusedUpgrade(inst, mallory.token)).toEqual({ status: 401, body: { error: 'Invalid access token' } });
  });

  it('pings every period and drops a client that stops answering', async () => {
    const hub = streamingHub(inst.deps)!;
    hub.setHeartbeats(100, 100);
    try {
      const socket = await openSocket(inst, bob.token, { query: 'stream=public' });
      let pings = 0;
      socket.ws.on('ping', () => pings++);
      await socket.until(() => pings >= 2, 2000, 'two pings');
      // A client that no longer answers pings (its pong is never sent) is dropped.
      const silent = new WebSocket(wsUrl(inst, 'stream=public'), { headers: { authorization: `Bearer ${bob.token}` }, autoPong: false });
      await new Promise((r) => silent.once('open', r));
      const closed = new Promise<number>((r) => silent.once('close', (code) => r(code)));
      expect(await closed).toBe(1006);
      expect(socket.ws.readyState).toBe(WebSocket.OPEN);
    } finally {
      hub.setHeartbeats(30_000, 15_000);
    }
  });

  it('answers GET /api/v1/streaming/health with OK and a plain GET /api/v1/streaming with 404', async () => {
    const health = await fetch(`${inst.url}/api/v1/streaming/health`);
    expect(health.status).toBe(200);
    expect(health.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await health.text()).toBe('OK');
    // The streaming API lives on this host: clients asking for a redirect get Not Found, as Mastodon answers.
    const plain = await inst.anon.get('/api/v1/streaming', { skipSchema: true });
    expect(plain.status).toBe(404);
  });

  it('points the instance documents at this server for streaming', async () => {
    const v1 = await inst.anon.get('/api/v1/instance');
    expect(v1.body.urls.streaming_api).toBe(inst.url.replace(/^http/, 'ws'));
    const v2 = await inst.anon.get('/api/v2/instance');
    expect(v2.body.configuration.urls.streaming).toBe(inst.url.replace(/^http/, 'ws'));
  });
});

