import { createPublicKey, generateKeyPair, verify as verifySignature, createPrivateKey, webcrypto } from 'node:crypto';
import { promisify } from 'node:util';
import type { RelayStore } from './store/types.js';

type CryptoKey = webcrypto.CryptoKey;

/** The relay's own actor: the identity its signed GETs (key fetches for edge verification) carry. */
export interface RelayActor {
  /** `https://relay.example/actor` (http under --allow-loopback). */
  id: string;
  keyId: string;
  publicKeyPem: string;
  privateKey: CryptoKey;
}

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

/**
 * The relay actor's RSA key pair: made on the first start and kept in the store's meta table (the
 * first process to write it wins, so relay processes sharing a database share one actor). This is
 * the relay's key, never an instance's: instances sign their own deliveries.
 */
export async function loadRelayActor(store: RelayStore, base: string): Promise<RelayActor> {
  let stored = await store.getMeta('actor_key');
  if (!stored) {
    const pair = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
    const made = JSON.stringify({
      publicKeyPem: pair.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
      privateKeyPem: pair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    });
    stored = await store.initMeta('actor_key', made);
  }
  const { publicKeyPem, privateKeyPem } = JSON.parse(stored) as { publicKeyPem: string; privateKeyPem: string };
  const pkcs8 = createPrivateKey(privateKeyPem).export({ type: 'pkcs8', format: 'der' });
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, RSA, true, ['sign']);
  const id = `${base}/actor`;
  return { id, keyId: `${id}#main-key`, publicKeyPem, privateKey };
}

/** The relay actor's document (an Application, as instance actors are), served at its id. */
export function relayActorDocument(actor: RelayActor, domain: string): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/activitystreams', 'https://w3id.org/security/v1'],
    id: actor.id,
    type: 'Application',
    preferredUsername: domain,
    name: `Hearth relay ${domain}`,
    inbox: `${actor.id}/inbox`,
    outbox: `${actor.id}/outbox`,
    manuallyApprovesFollowers: true,
    publicKey: { id: actor.keyId, owner: actor.id, publicKeyPem: actor.publicKeyPem },
  };
}

/** Whether `signature` (base64) is an Ed25519 signature of `message` by `publicKey` (SPKI DER, base64). */
export function verifyTunnelSignature(publicKey: string, message: Buffer, signature: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    if (key.asymmetricKeyType !== 'ed25519') return false;
    return verifySignature(null, message, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}
