import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeRemote, mastodonPerson, PUBLIC, type FakeActor } from '../federation/fake-remote.js';
import { eventually } from '../federation/helpers.js';
import { hearth, makeNet, startInstanceProc, startRelayProc, type InstanceProc, type Net, type RelayProc } from './processes.js';

const ACTORS = 50;
const MENTIONS = 100;
const EDITED = 30;
const DELETED = 30;
const AS = 'https://www.w3.org/ns/activitystreams';

interface Planned {
  actor: FakeActor;
  activity: Record<string, unknown>;
}

/**
 * What each of 50 senders sends while the instance is offline, 200 activities each, in the order a
 * server would: a Follow (undone by every second sender), Likes of alice's three posts (the third
 * undone), boosts of two (the second undone), 100 public posts mentioning alice (30 edited, 30
 * others deleted), and direct messages to alice for the rest.
 */
function plan(actors: FakeActor[], alice: string, posts: string[]): Planned[][] {
  return actors.map((actor, i) => {
    const out: Record<string, unknown>[] = [];
    const follow = { '@context': AS, id: `${actor.id}#follows/${i}`, type: 'Follow', actor: actor.id, object: alice };
    out.push(follow);
    const likes = posts.map((p, k) => ({ '@context': AS, id: `${actor.id}#likes/${k}`, type: 'Like', actor: actor.id, object: p }));
    out.push(...likes);
    const boosts = posts.slice(0, 2).map((p, k) => ({ '@context': AS, id: `${actor.id}/statuses/boost${k}/activity`, type: 'Announce', actor: actor.id, object: p, to: [PUBLIC], published: new Date().toISOString() }));
    out.push(...boosts);
    const note = (k: number, direct: boolean, content: string) => ({
      id: `${actor.id}/statuses/${direct ? 'd' : 'm'}${k}`,
      type: 'Note',
      attributedTo: actor.id,
      content,
      published: new Date(Date.now() - 60_000).toISOString(),
      to: direct ? [alice] : [PUBLIC],
      cc: direct ? [] : [alice],
      tag: [{ type: 'Mention', href: alice, name: '@alice' }],
    });
    for (let k = 0; k < MENTIONS; k++) out.push({ '@context': AS, id: `${actor.id}/statuses/m${k}/activity`, type: 'Create', actor: actor.id, to: [PUBLIC], cc: [alice], object: note(k, false, `<p>mention ${k} from ${i}</p>`) });
    for (let k = 0; k < EDITED; k++) {
      out.push({ '@context': AS, id: `${actor.id}/statuses/m${k}#update`, type: 'Update', actor: actor.id, to: [PUBLIC], object: { ...note(k, false, `<p>mention ${k} from ${i}, edited</p>`), updated: new Date().toISOString() } });
    }
    for (let k = MENTIONS - DELETED; k < MENTIONS; k++) out.push({ '@context': AS, id: `${actor.id}/statuses/m${k}#delete`, type: 'Delete', actor: actor.id, to: [PUBLIC], object: `${actor.id}/statuses/m${k}` });
    const undos: Record<string, unknown>[] = [likes[2] as Record<string, unknown>, boosts[1] as Record<string, unknown>];
    if (i % 2 === 1) undos.push(follow);
    const directs = 200 - out.length - undos.length;
    for (let k = 0; k < directs; k++) out.push({ '@context': AS, id: `${actor.id}/statuses/d${k}/activity`, type: 'Create', actor: actor.id, to: [alice], object: note(k, true, `<p>direct ${k} from ${i}</p>`) });
    for (const [n, undone] of undos.entries()) out.push({ '@context': AS, id: `${actor.id}#undo/${n}`, type: 'Undo', actor: actor.id, object: undone });
    return out.map((activity) => ({ actor, activity }));
  });
}

/**
 * The instance is offline while a peer sends it 10,000 activities through the relay; the relay is
 * killed (SIGKILL) while accepting them and again while replaying them. Afterwards every activity
 * answered 202 has taken effect exactly once.
 */
describe('a backlog of 10,000 activities, with the relay killed twice', () => {
  let net: Net;
  let relay: RelayProc;
  let a: InstanceProc;
  let peer: FakeRemote;
  let host: string;
  let aliceUri: string;
  let posts: string[];
  let postIds: string[];
  let accepted = 0;

  beforeAll(async () => {
    net = makeNet();
    relay = await startRelayProc(net);
    host = `${net.relayForPeer}:${relay.port}`;
    const code = relay.addTenant(host);
    a = await startInstanceProc(net, 'instance', ['alice'], () => ['--relay', relay.url, '--relay-code', code], () => `http://${host}`);
    const alice = a.client('alice');
    posts = [];
    postIds = [];
    for (let k = 0; k < 3; k++) {
      const made = (await alice.post('/api/v1/statuses', { status: `alice post ${k}`, visibility: 'public' })).body as { id: string; uri: string };
      posts.push(made.uri);
      postIds.push(made.id);
    }
    aliceUri = `http://${host}/users/alice`;
    peer = await FakeRemote.start(net.kind === 'netns' ? net.relayForPeer : `127.0.${net.peer.split('.')[2]}.4`);
  }, 120_000);
  afterAll(async () => {
    await a?.close();
    await relay?.close();
    await peer?.close();
    net?.cleanup();
  });

  it('accepts all of them while the instance is stopped, though the relay is killed in the middle', async () => {
    await a.proc.stop();
    const actors: FakeActor[] = [];
    for (let i = 0; i < ACTORS; i++) actors.push(await peer.actor(`/users/s${i}`, (x) => mastodonPerson(peer, x, `s${i}`)));
    const queues = plan(actors, aliceUri, posts);
    expect(queues.flat()).toHaveLength(10_000);
    let killed = false;
    // Sixteen senders at once, each working through whole senders' queues in order, retrying a
    // delivery until it is answered 202, as a peer does.
    const next = [...queues];
    const worker = async () => {
      for (let q = next.shift(); q; q = next.shift()) {
        for (const { actor, activity } of q) {
          for (let attempt = 0; ; attempt++) {
            const status = await peer.send(`http://${host}`, actor, activity).catch(() => 0);
            if (status === 202) break;
            if (attempt > 200) throw new Error(`${String(activity.id)} never accepted (last status ${status})`);
            await new Promise((r) => setTimeout(r, 100));
          }
          accepted += 1;
          if (accepted === 3000 && !killed) {
            killed = true;
            await relay.proc.stop('SIGKILL');
            await relay.restart();
          }
        }
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    expect(killed).toBe(true);
    expect(accepted).toBe(10_000);
    // Every one is stored once: no repeat took a second place in the queue.
    const db = new Database(join(relay.dataDir, 'relay.sqlite3'), { readonly: true });
    try {
      const stored = db.prepare('SELECT count(*) AS n FROM inbound').get() as { n: number };
      expect(stored.n).toBe(10_000);
    } finally {
      db.close();
    }
  }, 600_000);

  it('replays them after the instance comes back, though the relay is killed in the middle again, and each takes effect once', async () => {
    await a.restart();
    const relayDb = () => new Database(join(relay.dataDir, 'relay.sqlite3'), { readonly: true });
    const backlog = () => {
      const db = relayDb();
      try {
        return (db.prepare('SELECT count(*) AS n FROM inbound').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const withLogs = async (what: Promise<unknown>) => {
      try {
        await what;
      } catch (err) {
        throw new Error(`${(err as Error).message}; backlog ${backlog()}\n--- instance ---\n${a.proc.output().slice(-6000)}\n--- relay ---\n${relay.proc.output().slice(-4000)}`);
      }
    };
    await withLogs(eventually(() => backlog() <= 7000, 300_000));
    await relay.proc.stop('SIGKILL');
    await relay.restart();
    await withLogs(eventually(() => backlog() === 0, 600_000));
    const db = new Database(join(a.dataDir, 'hearth.sqlite3'), { readonly: true });
    try {
      const one = <T>(sql: string, ...params: unknown[]) => db.prepare(sql).get(...params) as T;
      await eventually(() => one<{ n: number }>("SELECT count(*) AS n FROM federation_queue WHERE queue = 'inbox'").n === 0, 300_000);
      const alice = one<{ id: bigint; followers_count: number }>("SELECT id, followers_count FROM accounts WHERE username = 'alice' AND domain IS NULL");
      // Follows: the 25 senders that did not undo theirs.
      expect(one<{ n: number }>('SELECT count(*) AS n FROM follows WHERE target_account_id = ?', alice.id).n).toBe(25);
      expect(alice.followers_count).toBe(25);
      // Likes: every sender's of the first two posts; the third's were undone. Boosts: the first only.
      const count = (table: string, id: string, column = 'status_id') => one<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, BigInt(id)).n;
      expect(postIds.map((id) => count('favourites', id))).toEqual([50, 50, 0]);
      expect(postIds.map((id) => count('statuses', id, 'reblog_of_id'))).toEqual([50, 0, 0]);
      // Statuses: 70 public posts each (30 of 100 deleted) and the direct messages, none twice.
      const remote = one<{ n: number }>("SELECT count(*) AS n FROM statuses s JOIN accounts a ON a.id = s.account_id WHERE a.domain IS NOT NULL AND s.reblog_of_id IS NULL").n;
      expect(remote).toBe(50 * 70 + 25 * 32 + 25 * 31);
      expect(one<{ n: number }>("SELECT count(*) AS n FROM statuses WHERE content LIKE '%, edited%'").n).toBe(50 * EDITED);
      expect(one<{ n: number }>("SELECT count(*) AS n FROM statuses WHERE uri LIKE '%/statuses/m%' AND CAST(substr(uri, instr(uri, '/statuses/m') + 11) AS INTEGER) >= ?", MENTIONS - DELETED).n).toBe(0);
      // Notifications: one per standing follow, one per standing mention (posts and direct messages).
      const notes = (type: string) => one<{ n: number }>('SELECT count(*) AS n FROM notifications WHERE account_id = ? AND type = ?', alice.id, type).n;
      expect(notes('follow')).toBe(25);
      expect(notes('mention')).toBe(remote);
      expect(notes('favourite')).toBe(100);
      expect(notes('reblog')).toBe(50);
    } finally {
      db.close();
    }
    const status = JSON.parse(hearth(['relay', 'status', '--data', a.dataDir])) as { connected: boolean; backlog: number };
    expect(status.connected).toBe(true);
  }, 900_000);
});
