import { createPrivateKey, createPublicKey, webcrypto } from 'node:crypto';

type CryptoKeyPair = webcrypto.CryptoKeyPair;
type CryptoKey = webcrypto.CryptoKey;

const RSA = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' } as const;

/** Imports a stored PEM key pair (spki public, pkcs8 private) as WebCrypto keys for Fedify. */
export async function importKeyPair(publicKeyPem: string, privateKeyPem: string): Promise<CryptoKeyPair> {
  const spki = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  const pkcs8 = createPrivateKey(privateKeyPem).export({ type: 'pkcs8', format: 'der' });
  const publicKey = await crypto.subtle.importKey('spki', spki, RSA, true, ['verify']);
  const privateKey = await crypto.subtle.importKey('pkcs8', pkcs8, RSA, true, ['sign']);
  return { publicKey, privateKey };
}

/** Exports a WebCrypto public key as an spki PEM (remote actors' keys, stored on the account). */
export async function exportPublicKeyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey('spki', key));
  const b64 = der.toString('base64').replace(/(.{64})/g, '$1\n');
  return `-----BEGIN PUBLIC KEY-----\n${b64.trimEnd()}\n-----END PUBLIC KEY-----\n`;
}
