import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectTunnel, TunnelRefused, tunnelUrl } from '../../api/relay/tunnel-client.js';
import { authMessage, decodeToInstance, encodeFrame, type ToInstance, type ToRelay } from '../../relay/protocol.js';
import { FakeRemote, mastodonPerson, type FakeActor } from '../federation/fake-remote.js';
import { RELAY_BACKENDS, RelayDatabases, startRelay, type TestRelay } from './rig.js';

/** A fresh Ed25519 tunnel key: the public half as the relay stores it, the private half to sign. */
function tunnelKey(): { publicKey: string; privateKey: KeyObject } {
  const pair = generateKeyPairSync('ed25519');
  return { publicKey: pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64'), privateKey: pair.privateKey };
}

/** Opens a raw tunnel connection; resolves with the challenge's nonce and a way to talk. */
function rawConnection(relayUrl: string): Promise<{ nonce: string; send(frame: ToRelay): void; next(): Promise<ToInstance>; close(): void }> {
  const ws = new WebSocket(tunnelUrl(relayUrl));
  const frames: ToInstance[] = [];
  const waiting: ((f: ToInstance) => void)[] = [];
  ws.on('message', (data) => {
    const { frame } = decodeToInstance(data as Buffer);
    const w = waiting.shift();
    if (w) w(frame);
    else frames.push(frame);
  });
  const next = () => new Promise<ToInstance>((resolve) => (frames.length ? resolve(frames.shift() as ToInstance) : waiting.push(resolve)));
  return new Promise((resolve, reject) => {
    ws.once('error', reject);
    void next().then((first) => {
      if (first.t !== 'challenge') return reject(new Error(`expected a challenge, got ${first.t}`));
      resolve({ nonce: first.nonce, send: (f) => ws.send(encodeFrame(f)), next, close: () => ws.close() });
    });
  });
}

const databases = new RelayDatabases();
afterAll(() => databases.stop());

describe.each(RELAY_BACKENDS)('relay tunnel authentication on %s', (backend) => {
  let relay: TestRelay;
  let relayHost: string;
  const a = tunnelKey();
  const b = tunnelKey();
  let hostA: string;
  let hostB: string;
  beforeAll(async () => {
    relay = await startRelay({ databaseUrl: await databases.url(backend) });
    relayHost = new URL(relay.url).host;
    hostA = `127.0.0.31:${relay.port}`;
    hostB = `127.0.0.32:${relay.port}`;
    const codeA = await relay.addTenant(hostA);
    const codeB = await relay.addTenant(hostB);
    const welcomeA = await connectTunnel(relay.url, { kind: 'enrol', code: codeA, publicKey: a.publicKey, privateKey: a.privateKey }, false, () => {});
    welcomeA.ws.close();
    expect(welcomeA.welcome).toMatchObject({ host: hostA, origin: `http://${hostA}` });
    const welcomeB = await connectTunnel(relay.url, { kind: 'enrol', code: codeB, publicKey: b.publicKey, privateKey: b.privateKey }, false, () => {});
    welcomeB.ws.close();
  }, 60_000);
  afterAll(async () => {
    await relay?.close();
  });

  it('logs a tenant in with its own key', async () => {
    const { ws, welcome } = await connectTunnel(relay.url, { kind: 'login', host: hostA, privateKey: a.privateKey }, false, () => {});
    expect(welcome.host).toBe(hostA);
    ws.close();
  });

  it('refuses a forged login: a key the relay never enrolled', async () => {
    const forged = tunnelKey();
    await expect(connectTunnel(relay.url, { kind: 'login', host: hostA, privateKey: forged.privateKey }, false, () => {})).rejects.toMatchObject({ reason: 'bad-signature' });
  });

  it("refuses a tenant's valid key on another tenant's host", async () => {
    await expect(connectTunnel(relay.url, { kind: 'login', host: hostB, privateKey: a.privateKey }, false, () => {})).rejects.toBeInstanceOf(TunnelRefused);
    await expect(connectTunnel(relay.url, { kind: 'login', host: hostB, privateKey: a.privateKey }, false, () => {})).rejects.toMatchObject({ reason: 'bad-signature' });
  });

  it('refuses a replayed challenge answer: a login signed for another connection', async () => {
    const first = await rawConnection(relay.url);
    const login: ToRelay = { t: 'login', host: hostA, clients: false, signature: sign(null, authMessage('login', relayHost, first.nonce, hostA), a.privateKey).toString('base64') };
    first.send(login);
    expect((await first.next()).t).toBe('welcome');
    first.close();
    // The same frame, word for word, on a new connection (with a new nonce) is refused.
    const second = await rawConnection(relay.url);
    second.send(login);
    expect(await second.next()).toMatchObject({ t: 'refused', reason: 'bad-signature' });
    second.close();
  });

  it('refuses a login signed for another relay (the relay host is part of what is signed)', async () => {
    const conn = await rawConnection(relay.url);
    conn.send({ t: 'login', host: hostA, clients: false, signature: sign(null, authMessage('login', 'evil.example', conn.nonce, hostA), a.privateKey).toString('base64') });
    expect(await conn.next()).toMatchObject({ t: 'refused', reason: 'bad-signature' });
    conn.close();
  });

  it('spends an enrolment code once; a wrongly signed enrolment does not spend it', async () => {
    const hostC = `127.0.0.33:${relay.port}`;
    const code = await relay.addTenant(hostC);
    const c = tunnelKey();
    const other = tunnelKey();
    // Signed by another key than the one it names: refused, and the code still works after.
    const conn = await rawConnection(relay.url);
    conn.send({ t: 'enrol', code, publicKey: c.publicKey, clients: false, signature: sign(null, authMessage('enrol', relayHost, conn.nonce, `${code}\n${c.publicKey}`), other.privateKey).toString('base64') });
    expect(await conn.next()).toMatchObject({ t: 'refused', reason: 'bad-signature' });
    conn.close();
    const ok = await connectTunnel(relay.url, { kind: 'enrol', code, publicKey: c.publicKey, privateKey: c.privateKey }, false, () => {});
    ok.ws.close();
    const again = tunnelKey();
    await expect(connectTunnel(relay.url, { kind: 'enrol', code, publicKey: again.publicKey, privateKey: again.privateKey }, false, () => {})).rejects.toMatchObject({ reason: 'bad-code' });
  });

  it('refuses anything but a login or an enrolment as the first frame', async () => {
    const conn = await rawConnection(relay.url);
    conn.send({ t: 'ack', seq: 1, applied: true, status: 202 });
    expect(await conn.next()).toMatchObject({ t: 'refused', reason: 'protocol' });
    conn.close();
  });

  describe('isolation between tenants', () => {
    let peer: FakeRemote;
    let mona: FakeActor;
    beforeAll(async () => {
      peer = await FakeRemote.start('127.0.0.34');
      mona = await peer.actor('/users/mona', (x) => mastodonPerson(peer, x, 'mona'));
    });
    afterAll(async () => {
      await peer?.close();
    });

    it("a tenant's tunnel carries its own mail only; another tenant's waits for that tenant", async () => {
      const gotA: ToInstance[] = [];
      const gotB: ToInstance[] = [];
      const tunnelA = await connectTunnel(relay.url, { kind: 'login', host: hostA, privateKey: a.privateKey }, false, (f) => gotA.push(f));
      const follow = { '@context': 'https://www.w3.org/ns/activitystreams', id: `${mona.id}#follows/b1`, type: 'Follow', actor: mona.id, object: `http://${hostB}/users/bob` };
      expect(await peer.send(`http://${hostB}`, mona, follow)).toBe(202);
      await new Promise((r) => setTimeout(r, 300));
      expect(gotA.filter((f) => f.t === 'inbound')).toEqual([]);
      const tunnelB = await connectTunnel(relay.url, { kind: 'login', host: hostB, privateKey: b.privateKey }, false, (f) => gotB.push(f));
      for (let i = 0; i < 50 && !gotB.some((f) => f.t === 'inbound'); i++) await new Promise((r) => setTimeout(r, 50));
      const inbound = gotB.find((f) => f.t === 'inbound');
      expect(inbound).toMatchObject({ t: 'inbound', path: '/inbox', method: 'POST' });
      expect(gotA.filter((f) => f.t === 'inbound')).toEqual([]);
      tunnelA.ws.close();
      tunnelB.ws.close();
    });
  });
});
