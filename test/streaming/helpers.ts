import { expect } from 'vitest';
import WebSocket from 'ws';
import { streamingHub } from '../../api/streaming/index.js';
import { newId } from '../../api/util/ids.js';
import type { TestClient } from '../helpers/client.js';
import type { TestInstance } from '../helpers/instance.js';
import { validateResponse } from '../helpers/openapi.js';

export { postStatus as post, seedRemoteAccount } from '../helpers/fixtures.js';

/** One message of a WebSocket stream, with its payload parsed (delete ids stay strings). */
export interface StreamEvent {
  stream: string[];
  event: string;
  /** The raw payload string (absent for filters_changed). */
  raw: string | undefined;
  payload: any;
}

/** An error message sent on the socket. */
export interface StreamErrorMessage {
  error: string;
  status: number;
}

/** The JSON Schema name of each event's payload in Mastodon's OpenAPI description. */
const PAYLOAD_SCHEMA: Record<string, string | undefined> = {
  update: 'Status',
  'status.update': 'Status',
  notification: 'Notification',
  conversation: 'Conversation',
};

/**
 * Checks an event payload against Mastodon's OpenAPI description (through a path that answers with
 * that entity) and that every identifier in it is a string.
 */
export function checkPayload(event: string, payload: unknown): void {
  const path = { Status: '/api/v1/statuses/1', Notification: '/api/v1/notifications/1', Conversation: '/api/v1/conversations' }[PAYLOAD_SCHEMA[event] ?? ''];
  if (!path) return;
  const body = event === 'conversation' ? [payload] : payload;
  expect(validateResponse('GET', path, 200, body), `payload of ${event}`).toEqual([]);
  expect(numericIds(payload), `ids of ${event} are strings`).toEqual([]);
}

/** Paths of `id` / `*_id` attributes that hold numbers (every identifier must be a string). */
export function numericIds(value: unknown, path = ''): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => numericIds(v, `${path}[${i}]`));
  if (value && typeof value === 'object') {
    return Object.entries(value).flatMap(([k, v]) => {
      const here = `${path}.${k}`;
      const bad = (k === 'id' || k.endsWith('_id')) && typeof v === 'number' ? [here] : [];
      return [...bad, ...numericIds(v, here)];
    });
  }
  return [];
}

/** A WebSocket client on the streaming API that keeps every message it gets. */
export class StreamSocket {
  readonly events: StreamEvent[] = [];
  readonly errors: StreamErrorMessage[] = [];
  private waiters: (() => void)[] = [];
  closed: { code: number; reason: string } | null = null;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>;
      if ('error' in message) this.errors.push(message as unknown as StreamErrorMessage);
      else {
        const raw = message.payload as string | undefined;
        const event = String(message.event);
        const payload = raw === undefined || event === 'delete' ? raw : JSON.parse(raw);
        this.events.push({ stream: message.stream as string[], event, raw, payload });
      }
      this.wake();
    });
    ws.on('close', (code, reason) => {
      this.closed = { code, reason: String(reason) };
      this.wake();
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((w) => w());
  }

  /** Resolves when `check` holds (it is tried after every message), or fails after `ms`. */
  async until<T>(check: () => T | undefined | false, ms = 3000, what = 'a message'): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = check();
      if (value) return value;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}; got ${JSON.stringify(this.events.map((e) => [e.stream, e.event]))} errors ${JSON.stringify(this.errors)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The first event matching, waiting for it; its payload is checked against the OpenAPI description. */
  async next(match: (e: StreamEvent) => boolean, ms = 3000): Promise<StreamEvent> {
    const event = await this.until(() => this.events.find(match), ms, 'an event');
    checkPayload(event.event, event.payload);
    return event;
  }

  /** The next error message after the `seen` first ones. */
  async error(seen = 0, ms = 3000): Promise<StreamErrorMessage> {
    return this.until(() => this.errors[seen], ms, 'an error message');
  }

  /**
   * Waits until the server has handled everything sent before: it answers messages in order, so
   * the error reply to a deliberately unknown message proves the earlier ones were handled.
   */
  async sync(): Promise<void> {
    const seen = this.errors.length;
    this.send({ type: 'ping-for-sync' });
    const err = await this.error(seen);
    expect(err.error).toMatch(/Unknown message type/);
    this.errors.splice(seen, 1);
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  async subscribe(stream: string, params: Record<string, string> = {}): Promise<void> {
    this.send({ type: 'subscribe', stream, ...params });
    await this.sync();
  }

  /** Events matching `match` so far. */
  matching(match: (e: StreamEvent) => boolean): StreamEvent[] {
    return this.events.filter(match);
  }

  close(): void {
    this.ws.terminate();
  }
}

/** Where a WebSocket connects to: the instance's ws:// URL with an optional query. */
export function wsUrl(inst: TestInstance, query = ''): string {
  return `${inst.url.replace(/^http/, 'ws')}/api/v1/streaming${query ? `?${query}` : ''}`;
}

/** Opens a WebSocket with the token in the Authorization header (or as told); resolves once open. */
export async function openSocket(inst: TestInstance, token: string | null, options: { query?: string; protocol?: string; headers?: Record<string, string> } = {}): Promise<StreamSocket> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (token) headers.authorization = `Bearer ${token}`;
  const ws = new WebSocket(wsUrl(inst, options.query), options.protocol ? [options.protocol] : [], { headers });
  const socket = new StreamSocket(ws);
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  sockets.push(socket);
  return socket;
}

/** The HTTP answer to a refused upgrade: status and JSON body. */
export async function refusedUpgrade(inst: TestInstance, token: string | null, options: { query?: string; protocol?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (token) headers.authorization = `Bearer ${token}`;
  const ws = new WebSocket(wsUrl(inst, options.query), options.protocol ? [options.protocol] : [], { headers });
  return new Promise((resolve, reject) => {
    ws.once('open', () => reject(new Error('the upgrade was accepted')));
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    ws.once('error', () => {});
  });
}

const sockets: StreamSocket[] = [];

/** Closes every socket the helpers opened. */
export function closeSockets(): void {
  for (const s of sockets.splice(0)) s.close();
}

/** An event of a server-sent stream. */
export interface SseEvent {
  event: string;
  data: string;
}

/** A server-sent events client over fetch: keeps the events and the comment lines it reads. */
export class SseStream {
  readonly events: SseEvent[] = [];
  readonly comments: string[] = [];
  private buffer = '';
  private waiters: (() => void)[] = [];
  ended = false;

  constructor(
    readonly response: Response,
    private readonly abort: AbortController,
  ) {
    void this.pump();
  }

  private async pump(): Promise<void> {
    const reader = this.response.body!.getReader();
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        this.buffer += decoder.decode(value, { stream: true });
        this.parse();
      }
    } catch {
      // Aborted or dropped.
    }
    this.ended = true;
    this.wake();
  }

  private parse(): void {
    let event: string | null = null;
    for (;;) {
      const nl = this.buffer.indexOf('\n');
      if (nl === -1) return;
      const line = this.buffer.slice(0, nl);
      if (line.startsWith(':')) {
        this.comments.push(line);
        this.buffer = this.buffer.slice(nl + 1);
        this.wake();
        continue;
      }
      // An event is complete at its blank line.
      const end = this.buffer.indexOf('\n\n');
      if (end === -1) return;
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let data = '';
      for (const l of block.split('\n')) {
        if (l.startsWith('event: ')) event = l.slice(7);
        else if (l.startsWith('data: ')) data = l.slice(6);
      }
      if (event !== null) this.events.push({ event, data });
      event = null;
      this.wake();
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    waiters.forEach((w) => w());
  }

  /** Resolves when `check` holds, or fails after `ms`. */
  async until<T>(check: () => T | undefined | false, ms = 3000): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      const value = check();
      if (value) return value;
      const left = deadline - Date.now();
      if (left <= 0 || this.ended) throw new Error(`timed out; got ${JSON.stringify(this.events.map((e) => e.event))}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The first event of this name whose data passes `match`; payloads are checked as on WebSocket. */
  async next(event: string, match: (data: any, raw: string) => boolean = () => true, ms = 3000): Promise<any> {
    const found = await this.until(() =>
      this.events.find((e) => {
        if (e.event !== event) return false;
        const parsed = event === 'delete' || e.data === 'undefined' ? e.data : JSON.parse(e.data);
        return match(parsed, e.data);
      }),
    ms);
    const payload = event === 'delete' || found.data === 'undefined' ? found.data : JSON.parse(found.data);
    checkPayload(event, payload);
    return payload;
  }

  close(): void {
    this.abort.abort();
  }
}

const streams: SseStream[] = [];

/** Opens an SSE stream (expects 200 and text/event-stream) and waits for its first comment line. */
export async function openSse(inst: TestInstance, path: string, token: string | null): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(`${inst.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {}, signal: abort.signal });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const stream = new SseStream(res, abort);
  streams.push(stream);
  await stream.until(() => stream.comments.length > 0);
  return stream;
}

/** Closes every SSE stream the helpers opened. */
export function closeStreams(): void {
  for (const s of streams.splice(0)) s.close();
}

/** Waits until the instance's hub holds `n` subscriptions (SSE streams subscribe as they open). */
export async function subscriptions(inst: TestInstance, n: number): Promise<void> {
  const until = Date.now() + 3000;
  while ((streamingHub(inst.deps)?.subscriptionCount ?? 0) !== n) {
    if (Date.now() > until) throw new Error(`expected ${n} subscriptions, have ${streamingHub(inst.deps)?.subscriptionCount}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Lets queued stream work run and messages travel: what has not arrived by then will not. */
export function settle(ms = 150): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** `client` follows `targetId` through the API (expects 200). */
export async function follow(client: TestClient, targetId: string, options: Record<string, unknown> = {}): Promise<void> {
  const res = await client.post(`/api/v1/accounts/${targetId}/follow`, options);
  expect(res.status, res.text).toBe(200);
}

/**
 * Seeds a remote status as federation stores it (optionally with an image and hashtags) and
 * announces it with 'status.created', as the inbox does.
 */
export function seedRemoteStatus(inst: TestInstance, accountId: string, options: { content?: string; media?: boolean; tags?: string[] } = {}): string {
  const db = inst.deps.db;
  const id = newId();
  const at = Date.now();
  db.query(
    `INSERT INTO statuses (id, account_id, local, uri, url, visibility, content, created_at, updated_at)
     VALUES (@id, @account_id, 0, @uri, @url, 'public', @content, @at, @at)`,
  ).run({ id, account_id: accountId, uri: `https://remote.example/statuses/${id}`, url: `https://remote.example/@x/${id}`, content: options.content ?? '<p>remote words</p>', at });
  if (options.media) {
    db.query(
      `INSERT INTO media_attachments (id, account_id, status_id, type, remote_url, file_content_type, meta, created_at, updated_at)
       VALUES (@id, @account_id, @status_id, 'image', @url, 'image/png', '{}', @at, @at)`,
    ).run({ id: newId(), account_id: accountId, status_id: id, url: `https://remote.example/media/${id}.png`, at });
  }
  for (const name of options.tags ?? []) {
    db.query('INSERT OR IGNORE INTO tags (id, name, name_normalized, created_at) VALUES (@id, @name, lower(@name), @at)').run({ id: newId(), name, at });
    db.query('INSERT INTO statuses_tags (status_id, tag_id) SELECT @status_id, id FROM tags WHERE name_normalized = lower(@name)').run({ status_id: id, name });
  }
  inst.deps.events.emit('status.created', { statusId: id, accountId });
  return id;
}
