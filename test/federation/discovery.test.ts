import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestUser } from '../helpers/instance.js';
import { startFederated } from './helpers.js';

type Inst = Awaited<ReturnType<typeof startFederated>>;

const AP = 'application/activity+json';

describe('federation discovery', () => {
  let a: Inst;
  let alice: TestUser;
  beforeAll(async () => {
    a = await startFederated('127.0.0.2');
    alice = await a.createUser('alice');
  });
  afterAll(async () => {
    await a.close();
  });

  it('answers WebFinger for acct: and the actor URL, round-tripping the handle', async () => {
    const res = await fetch(`${a.origin}/.well-known/webfinger?resource=acct:alice@${a.domain}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { subject: string; links: { rel: string; type?: string; href?: string }[] };
    expect(body.subject).toBe(`acct:alice@${a.domain}`);
    const self = body.links.find((l) => l.rel === 'self');
    expect(self?.href).toBe(`${a.origin}/users/alice`);
    expect(self?.type).toBe(AP);
    const byUrl = await fetch(`${a.origin}/.well-known/webfinger?resource=${encodeURIComponent(`${a.origin}/users/alice`)}`);
    expect(byUrl.status).toBe(200);
    // As Mastodon: the handle as subject, the actor URL among the aliases.
    const viaUrl = (await byUrl.json()) as { subject: string; aliases?: string[]; links: { rel: string; href?: string }[] };
    expect(viaUrl.subject).toBe(`acct:alice@${a.domain}`);
    expect(viaUrl.aliases).toContain(`${a.origin}/users/alice`);
    expect(viaUrl.links.find((l) => l.rel === 'self')?.href).toBe(`${a.origin}/users/alice`);
    const unknown = await fetch(`${a.origin}/.well-known/webfinger?resource=acct:nobody@${a.domain}`);
    expect(unknown.status).toBe(404);
  });

  it('serves host-meta pointing to WebFinger', async () => {
    const res = await fetch(`${a.origin}/.well-known/host-meta`);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain(`${a.origin}/.well-known/webfinger?resource={uri}`);
  });

  it('serves the actor as activity+json and ld+json with keys, collections and shared inbox', async () => {
    for (const accept of [AP, 'application/ld+json; profile="https://www.w3.org/ns/activitystreams"']) {
      const res = await fetch(`${a.origin}/users/alice`, { headers: { accept } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('json');
      const actor = (await res.json()) as Record<string, unknown> & { publicKey: { id: string; owner: string; publicKeyPem: string }; endpoints: { sharedInbox: string } };
      expect(actor.type).toBe('Person');
      expect(actor.id).toBe(`${a.origin}/users/alice`);
      expect(actor.preferredUsername).toBe('alice');
      expect(actor.inbox).toBe(`${a.origin}/users/alice/inbox`);
      expect(actor.outbox).toBe(`${a.origin}/users/alice/outbox`);
      expect(actor.followers).toBe(`${a.origin}/users/alice/followers`);
      expect(actor.following).toBe(`${a.origin}/users/alice/following`);
      expect(actor.featured).toBe(`${a.origin}/users/alice/collections/featured`);
      expect(actor.endpoints.sharedInbox).toBe(`${a.origin}/inbox`);
      expect(actor.publicKey.id).toBe(`${a.origin}/users/alice#main-key`);
      expect(actor.publicKey.owner).toBe(`${a.origin}/users/alice`);
      expect(actor.publicKey.publicKeyPem).toContain('BEGIN PUBLIC KEY');
      expect(actor.manuallyApprovesFollowers).toBe(false);
    }
  });

  it('leaves browsers (HTML) and the REST API alone', async () => {
    const html = await fetch(`${a.origin}/users/alice`, { headers: { accept: 'text/html' } });
    expect(html.headers.get('content-type') ?? '').not.toContain('activity+json');
    const api = await alice.client.get('/api/v1/accounts/verify_credentials');
    expect(api.status).toBe(200);
  });

  it('builds every URL from the origin whatever Host the request came in on', async () => {
    const res = await fetch(`${a.url}/users/alice`, { headers: { accept: AP, host: `127.0.0.2:${new URL(a.origin).port}` } });
    expect(((await res.json()) as { id: string }).id).toBe(`${a.origin}/users/alice`);
  });

  it('serves followers and following with totals, and the outbox of public statuses only', async () => {
    await alice.client.post('/api/v1/statuses', { status: 'public hello', visibility: 'public' });
    await alice.client.post('/api/v1/statuses', { status: 'private hello', visibility: 'private' });
    const followers = (await (await fetch(`${a.origin}/users/alice/followers`, { headers: { accept: AP } })).json()) as { totalItems: number };
    expect(followers.totalItems).toBe(0);
    const outbox = (await (await fetch(`${a.origin}/users/alice/outbox`, { headers: { accept: AP } })).json()) as { totalItems: number; first: string | { id: string } };
    expect(outbox.totalItems).toBe(1);
    const firstUrl = typeof outbox.first === 'string' ? outbox.first : outbox.first.id;
    const page = (await (await fetch(firstUrl, { headers: { accept: AP } })).json()) as { orderedItems: { type: string; object: { content: string } }[] };
    expect(page.orderedItems).toHaveLength(1);
    expect(page.orderedItems[0]?.type).toBe('Create');
    expect(page.orderedItems[0]?.object.content).toContain('public hello');
  });

  it('serves public Notes and hides others', async () => {
    const pub = await alice.client.post('/api/v1/statuses', { status: 'note public', visibility: 'public' });
    const priv = await alice.client.post('/api/v1/statuses', { status: 'note private', visibility: 'private' });
    const id = (pub.body as { id: string }).id;
    const res = await fetch(`${a.origin}/users/alice/statuses/${id}`, { headers: { accept: AP } });
    expect(res.status).toBe(200);
    const note = (await res.json()) as { type: string; to: string | string[]; attributedTo: string };
    expect(note.type).toBe('Note');
    expect(note.attributedTo).toBe(`${a.origin}/users/alice`);
    expect([note.to].flat()).toContain('as:Public');
    const hidden = await fetch(`${a.origin}/users/alice/statuses/${(priv.body as { id: string }).id}`, { headers: { accept: AP } });
    expect(hidden.status).toBe(404);
  });
});
