import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { FakeRemote, MASTODON_CONTEXT, PUBLIC, mastodonPerson, type FakeActor } from './fake-remote.js';
import { eventually, startFederated } from './helpers.js';
import { drain } from './replay.js';

/**
 * The rig of the out-of-order and replay tests: a real instance, a fake Mastodon server (`masto`,
 * several actors on one origin) and a second fake server (`other`), activities built the way
 * Mastodon writes them, signed by the fake servers and delivered to the instance's shared inbox.
 */

type Inst = Awaited<ReturnType<typeof startFederated>>;
type Json = Record<string, unknown>;

const AS = 'https://www.w3.org/ns/activitystreams';
/** Fedify's idempotence marks in the key-value store (both the inbox's and the queue's). */
const IDEMPOTENCE_PREFIX = `${JSON.stringify(['_fedify', 'activityIdempotence']).slice(0, -1)},`;

export interface Notification {
  type: string;
  account: { acct: string };
  status?: { id: string } | null;
}
export interface Status {
  id: string;
  uri: string;
  content: string;
  favourites_count: number;
  reblogs_count: number;
}
export interface Account {
  id: string;
  acct: string;
  followers_count: number;
  following_count: number;
  statuses_count: number;
}
export interface Relationship {
  following: boolean;
  requested: boolean;
  followed_by: boolean;
  blocked_by: boolean;
}

export class Rig {
  private seq = 1_200_000_000_000;

  private constructor(
    readonly inst: Inst,
    readonly masto: FakeRemote,
    readonly other: FakeRemote,
  ) {}

  /** Starts the instance on `hosts[0]` and the two fake servers on `hosts[1]` and `hosts[2]`. */
  static async start(hosts: [string, string, string]): Promise<Rig> {
    const inst = await startFederated(hosts[0]);
    const masto = await FakeRemote.start(hosts[1]);
    const other = await FakeRemote.start(hosts[2]);
    return new Rig(inst, masto, other);
  }

  async close(): Promise<void> {
    await this.inst.close();
    await Promise.all([this.masto.close(), this.other.close()]);
  }

  /** A Mastodon actor `/users/<name>` on `server` (default the fake Mastodon). */
  actor(name: string, server: FakeRemote = this.masto, extra: Json = {}): Promise<FakeActor> {
    return server.actor(`/users/${name}`, (a) => mastodonPerson(server, a, name, extra));
  }

  /** The actor URI of a local user. */
  uriOf(user: TestUser): string {
    return `${this.inst.origin}/users/${user.username}`;
  }

  /** Signs `activity` as `from`, delivers it to the shared inbox and waits until it is processed. */
  async send(from: FakeActor, activity: Json): Promise<void> {
    const server = from.id.startsWith(this.other.origin) ? this.other : this.masto;
    expect(await server.send(this.inst.origin, from, activity)).toBe(202);
    await drain(this.inst);
  }

  private idOn(actor: FakeActor, path: string): string {
    return new URL(path, actor.id).href;
  }

  /** Follow, with a fresh id as Mastodon gives every Follow. */
  follow(actor: FakeActor, object: string): Json {
    return { '@context': AS, id: this.idOn(actor, `/${randomUUID()}`), type: 'Follow', actor: actor.id, object };
  }

  like(actor: FakeActor, object: string): Json {
    return { '@context': AS, id: `${actor.id}#likes/${this.seq++}`, type: 'Like', actor: actor.id, object };
  }

  announce(actor: FakeActor, object: string): Json {
    return { '@context': AS, id: `${actor.id}/statuses/${this.seq++}/activity`, type: 'Announce', actor: actor.id, published: new Date().toISOString(), to: [PUBLIC], cc: [`${actor.id}/followers`], object };
  }

  block(actor: FakeActor, object: string): Json {
    return { '@context': AS, id: this.idOn(actor, `/${randomUUID()}`), type: 'Block', actor: actor.id, object };
  }

  /** Undo of `object` (embedded, as Mastodon sends it, or only its id). */
  undo(actor: FakeActor, object: Json | string): Json {
    const id = typeof object === 'string' ? object : String(object.id);
    const embedded = typeof object === 'string' ? object : { ...object, '@context': undefined };
    return { '@context': AS, id: `${id}/undo`, type: 'Undo', actor: actor.id, object: embedded };
  }

  /** A public Mastodon Note (mentioning `mention`, a local user, when given) and its Create. */
  note(actor: FakeActor, content: string, mention?: TestUser): { create: Json; note: Json; id: string } {
    const id = `${actor.id}/statuses/${this.seq++}`;
    const cc = [`${actor.id}/followers`];
    const tag: Json[] = [];
    let html = `<p>${content}</p>`;
    if (mention) {
      const uri = this.uriOf(mention);
      cc.push(uri);
      tag.push({ type: 'Mention', href: uri, name: `@${mention.username}@${this.inst.domain}` });
      html = `<p><span class="h-card"><a href="${uri}" class="u-url mention">@<span>${mention.username}</span></a></span> ${content}</p>`;
    }
    const published = new Date().toISOString();
    const note = { id, type: 'Note', attributedTo: actor.id, published, to: [PUBLIC], cc, sensitive: false, content: html, tag, attachment: [] };
    const create = { '@context': MASTODON_CONTEXT, id: `${id}/activity`, type: 'Create', actor: actor.id, published, to: note.to, cc, object: note };
    return { create, note, id };
  }

  /** Update of a Note with new content (a later `updated` time). */
  update(actor: FakeActor, note: Json, content: string): Json {
    const updated = new Date(Date.now() + 1000).toISOString();
    return { '@context': MASTODON_CONTEXT, id: `${String(note.id)}#updates/${this.seq++}`, type: 'Update', actor: actor.id, to: [PUBLIC], object: { ...note, content: `<p>${content}</p>`, updated } };
  }

  /** Delete of a Note, as Mastodon sends it (a Tombstone). */
  del(actor: FakeActor, noteId: string): Json {
    return { '@context': AS, id: `${noteId}#delete`, type: 'Delete', actor: actor.id, to: [PUBLIC], object: { id: noteId, type: 'Tombstone', atomUri: noteId } };
  }

  /** Delete of the actor itself (account deletion). */
  deleteSelf(actor: FakeActor): Json {
    return { '@context': AS, id: `${actor.id}#delete`, type: 'Delete', actor: actor.id, to: [PUBLIC], object: actor.id };
  }

  /** How many of Fedify's idempotence marks name `activityId`. */
  marksOf(activityId: string): number {
    return this.inst.deps.db.query<{ n: number }>('SELECT count(*) AS n FROM federation_kv WHERE substr(key, 1, length(@p)) = @p AND instr(key, @id) > 0').get({ p: IDEMPOTENCE_PREFIX, id: activityId })?.n ?? 0;
  }

  /**
   * Forgets that `activityId` was processed, as a day later when Fedify's idempotence mark has
   * expired: the marks are removed (after checking they were there, committed).
   */
  async forget(activityId: string): Promise<void> {
    await eventually(() => this.marksOf(activityId) > 0);
    this.inst.deps.db.query('DELETE FROM federation_kv WHERE substr(key, 1, length(@p)) = @p AND instr(key, @id) > 0').run({ p: IDEMPOTENCE_PREFIX, id: activityId });
    expect(this.marksOf(activityId)).toBe(0);
  }

  /** Delivers `activity` again once Fedify has forgotten it, and checks that a listener handled it. */
  async replay(from: FakeActor, activity: Json): Promise<void> {
    const id = String(activity.id);
    await this.forget(id);
    await this.send(from, activity);
    // Fedify marks an activity once its listener has run: the replay was handled, not dropped.
    await eventually(() => this.marksOf(id) > 0);
  }

  /** A stored status by its ActivityPub id (remote statuses have no other handle here). */
  statusRow(uri: string): { id: string } | undefined {
    return this.inst.deps.db.query<{ id: string }>('SELECT id FROM statuses WHERE uri = ?').get(uri);
  }

  async notifications(user: TestUser, type: string, from: FakeActor): Promise<Notification[]> {
    const all = (await user.client.get('/api/v1/notifications?limit=80')).body as Notification[];
    const host = new URL(from.id).host;
    const name = from.id.split('/').pop() ?? '';
    return all.filter((n) => n.type === type && n.account.acct === `${name}@${host}`);
  }

  async account(user: TestUser, id = user.accountId): Promise<Account> {
    return (await user.client.get(`/api/v1/accounts/${id}`)).body as Account;
  }

  async status(user: TestUser, id: string): Promise<Status> {
    return (await user.client.get(`/api/v1/statuses/${id}`)).body as Status;
  }

  /** The remote account of `actor` as `user` sees it (it must be known here). */
  async remote(user: TestUser, actor: FakeActor): Promise<Account> {
    const name = actor.id.split('/').pop() ?? '';
    const res = await user.client.get(`/api/v1/accounts/lookup?acct=${encodeURIComponent(`${name}@${new URL(actor.id).host}`)}`);
    expect(res.status).toBe(200);
    return res.body as Account;
  }

  async relationship(user: TestUser, accountId: string): Promise<Relationship> {
    return ((await user.client.get(`/api/v1/accounts/relationships?id[]=${accountId}`)).body as Relationship[])[0] as Relationship;
  }

  /** The local user's followers, as `acct`s. */
  async followers(user: TestUser): Promise<string[]> {
    return ((await user.client.get(`/api/v1/accounts/${user.accountId}/followers`)).body as Account[]).map((a) => a.acct);
  }

  acctOf(actor: FakeActor): string {
    return `${actor.id.split('/').pop() ?? ''}@${new URL(actor.id).host}`;
  }
}
