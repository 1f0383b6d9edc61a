import { generateKeyPairSync } from 'node:crypto';
import type { Db } from '../db/connection.js';
import { getRelayEnrolment, saveRelayEnrolment, type RelayEnrolmentRow } from '../db/repos/relay.js';
import { connectTunnel } from './tunnel-client.js';

/**
 * Enrols the instance at a relay with a one-time code: makes the instance's Ed25519 tunnel key
 * (its own, never the ActivityPub key), proves it holds it by signing the relay's challenge, and
 * keeps what the relay answers (the host and public origin it serves the instance at) with the key.
 * Later starts log in with the key; the code is spent.
 */
export async function enrolAtRelay(db: Db, relayUrl: string, code: string, clients: boolean): Promise<RelayEnrolmentRow> {
  const pair = generateKeyPairSync('ed25519');
  const publicKey = pair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const { ws, welcome } = await connectTunnel(relayUrl, { kind: 'enrol', code, publicKey, privateKey: pair.privateKey }, clients, () => {});
  ws.close(1000, 'enrolled');
  const row: RelayEnrolmentRow = {
    relay_url: relayUrl,
    host: welcome.host,
    origin: welcome.origin,
    tunnel_public_key: publicKey,
    tunnel_private_key: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    enrolled_at: Date.now(),
  };
  saveRelayEnrolment(db, row);
  return row;
}

/**
 * The enrolment to use at start: the stored one when it is for this relay, else a new one with the
 * code (which the first start with a relay needs).
 */
export async function ensureEnrolment(db: Db, relayUrl: string, code: string | null, clients: boolean): Promise<RelayEnrolmentRow> {
  const stored = getRelayEnrolment(db);
  // Enrolled at this relay already: the key stays, and a code still in the configuration is spent.
  if (stored && stored.relay_url === relayUrl) return stored;
  if (!code) throw new Error(`not enrolled at ${relayUrl} yet: the first start with a relay needs its enrolment code (--relay-code)`);
  return enrolAtRelay(db, relayUrl, code, clients);
}
