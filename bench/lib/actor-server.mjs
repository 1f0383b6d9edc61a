// A loopback HTTP server standing in for a remote server's senders: N Person documents at
// /users/u0…/users/u{N-1}, each with its own RSA key (made on libuv's pool). Shared by the
// federation and relay benchmarks' peers.
import { generateKeyPair } from 'node:crypto';
import http from 'node:http';
import { promisify } from 'node:util';

const generate = promisify(generateKeyPair);
const AS = 'https://www.w3.org/ns/activitystreams';

/**
 * Starts the server with `actors` actors named `${label} u<i>`; resolves to its origin, the PEM key
 * pairs, the server, a count of document fetches, and the time the keys took (ms).
 */
export async function startActorServer({ host, actors, label }) {
  const started = Date.now();
  const keys = await Promise.all(
    Array.from({ length: actors }, () => generate('rsa', { modulusLength: 2048, publicKeyEncoding: { type: 'spki', format: 'pem' }, privateKeyEncoding: { type: 'pkcs8', format: 'pem' } })),
  );
  const keysMs = Date.now() - started;
  let origin = '';
  let fetches = 0;
  const server = http.createServer((req, res) => {
    const name = /^\/users\/(u\d+)$/.exec(req.url ?? '')?.[1];
    const index = name ? Number(name.slice(1)) : -1;
    if (req.method !== 'GET' || !(index >= 0 && index < actors)) {
      res.writeHead(404, { 'content-length': '0' }).end();
      return;
    }
    fetches++;
    const id = `${origin}/users/${name}`;
    const body = JSON.stringify({
      '@context': [AS, 'https://w3id.org/security/v1'],
      id,
      type: 'Person',
      preferredUsername: name,
      name: `${label} ${name}`,
      url: `${origin}/@${name}`,
      inbox: `${id}/inbox`,
      outbox: `${id}/outbox`,
      followers: `${id}/followers`,
      following: `${id}/following`,
      endpoints: { sharedInbox: `${origin}/inbox` },
      publicKey: { id: `${id}#main-key`, owner: id, publicKeyPem: keys[index].publicKey },
    });
    res.writeHead(200, { 'content-type': 'application/activity+json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise((r) => server.listen(0, host, r));
  origin = `http://${host}:${server.address().port}`;
  return { origin, keys, server, fetches: () => fetches, keysMs };
}
