import { randomBytes, scrypt, scryptSync, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, keylen: number, options: { N: number; r: number; p: number; maxmem: number }) => Promise<Buffer>;

const PARAMS = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEYLEN = 32;

function encodeHash(salt: Buffer, key: Buffer): string {
  return `scrypt$${PARAMS.N}$${PARAMS.r}$${PARAMS.p}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/**
 * Hashes a password with scrypt; the result carries its parameters and salt. Synchronous: it
 * holds the thread for the whole hash (tens of milliseconds), so a server path uses
 * `hashPasswordAsync`.
 */
export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  return encodeHash(salt, scryptSync(password, salt, KEYLEN, PARAMS));
}

/** `hashPassword` on libuv's thread pool: the event loop goes on serving meanwhile. */
export async function hashPasswordAsync(password: string): Promise<string> {
  const salt = randomBytes(16);
  return encodeHash(salt, await scryptAsync(password, salt, KEYLEN, PARAMS));
}

/** Checks a password against a stored hash in constant time. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
