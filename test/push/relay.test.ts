import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInstance } from '../helpers/instance.js';
import { httpRequest, startRelay, startRelayedInstance, type TestRelay } from '../relay/rig.js';
import { openPush, PushService, subscribeBody, userAgentKeys, type ReceivedPush } from './helpers.js';

/** The relay's count of requests it sent for its instances with a 2xx answer. */
async function sentOk(relay: TestRelay): Promise<number> {
  const metrics = await httpRequest(`${relay.url}/metrics`);
  return Number(/hearth_relay_sent_total\{outcome="ok"\} (\d+)/.exec(metrics.text)?.[1] ?? 0);
}

describe('Web Push through the relay', () => {
  let relay: TestRelay;
  let inst: TestInstance & { origin: string };
  let push: PushService;
  beforeAll(async () => {
    relay = await startRelay();
    inst = await startRelayedInstance(relay, '127.0.0.5');
    push = await PushService.start('127.0.0.8');
  }, 60_000);
  afterAll(async () => {
    await inst?.close();
    await relay?.close();
    await push?.close();
  });

  it('sends push requests out through the relay’s egress', async () => {
    const alice = await inst.createUser('alice');
    const bob = await inst.createUser('bob');
    const keys = userAgentKeys();
    const created = await alice.client.post('/api/v1/push/subscription', subscribeBody(push.endpoint('phone'), keys, { follow: true }, { standard: true }));
    expect(created.status, created.text).toBe(200);
    const before = await sentOk(relay);
    expect((await bob.client.post(`/api/v1/accounts/${alice.accountId}/follow`)).status).toBe(200);
    const received = await push.waitFor('phone', 1, 20_000);
    expect(openPush(received[0] as ReceivedPush, keys).json).toMatchObject({ notification_type: 'follow', title: 'bob followed you' });
    // The relay made the request (it counts what it sent for its instances).
    await expect.poll(() => sentOk(relay)).toBe(before + 1);
  });
});
