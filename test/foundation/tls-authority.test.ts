import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../api/config.js';
import { authorityPermits, makeAuthority, makeLeaf, type CertifiedKey, type TlsNames } from '../../api/tls/authority.js';
import { certificateNames } from '../../api/tls/listener.js';
import { ensureCertificates } from '../../api/tls/store.js';
import { isLoopbackAddress } from '../../api/util/hosts.js';
import { rebase } from '../../api/util/uris.js';

/** What a client trusting `ca` says of a server presenting `leaf` (followed by the authority) for `servername`. */
async function verdict(authority: CertifiedKey, leaf: CertifiedKey, servername: string): Promise<{ authorized: boolean; error: string | null }> {
  const server = createServer({ key: leaf.key, cert: `${leaf.cert}${authority.cert}` }, (s) => s.end());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  try {
    return await new Promise((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port, servername, ca: authority.cert, rejectUnauthorized: false }, () => {
        resolve({ authorized: socket.authorized, error: socket.authorizationError ? String(socket.authorizationError) : null });
        socket.destroy();
      });
      socket.on('error', reject);
    });
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

describe('the local certificate authority', () => {
  const names: TlsNames = { dns: ['hearth.localhost', 'localhost'], ips: ['127.0.0.1', '::1', '192.168.1.20'] };
  let authority: CertifiedKey;
  let dir: string;
  beforeAll(async () => {
    authority = await makeAuthority(names, 'test');
    dir = mkdtempSync(join(tmpdir(), 'hearth-ca-'));
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('is a CA limited to local names and private addresses, and its certificates verify', async () => {
    const ca = new X509Certificate(authority.cert);
    expect(ca.ca).toBe(true);
    const leaf = await makeLeaf(authority, names);
    const cert = new X509Certificate(leaf.cert);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.checkHost('hearth.localhost')).toBe('hearth.localhost');
    expect(cert.checkIP('192.168.1.20')).toBe('192.168.1.20');
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1');
    expect(await verdict(authority, leaf, 'hearth.localhost')).toEqual({ authorized: true, error: null });
  });

  it('cannot vouch for anybody else’s site, even with its key (name constraints)', async () => {
    const forged = await makeLeaf(authority, { dns: ['bank.example.com'], ips: [] });
    // Properly signed by the authority and named for the host asked: only the constraints refuse it
    // (OpenSSL's "permitted subtree violation", which Node reports as UNSPECIFIED).
    expect(new X509Certificate(forged.cert).verify(new X509Certificate(authority.cert).publicKey)).toBe(true);
    const result = await verdict(authority, forged, 'bank.example.com');
    expect(result.authorized).toBe(false);
    expect(result.error).not.toBeNull();
    expect(authorityPermits(authority.cert, { dns: ['bank.example.com'], ips: [] })).toBe(false);
    expect(authorityPermits(authority.cert, { dns: [], ips: ['8.8.8.8'] })).toBe(false);
    expect(authorityPermits(authority.cert, { dns: ['kim-laptop.local', 'hearth.internal', 'x.home.arpa'], ips: ['10.1.2.3', '100.100.1.1', 'fd12::1'] })).toBe(true);
  });

  it('permits the listener’s own names outside the local ones when it is made for them', async () => {
    const wide = await makeAuthority({ dns: ['hearth.kim.example'], ips: ['203.0.113.7'] }, 'test');
    expect(authorityPermits(wide.cert, { dns: ['hearth.kim.example', 'hearth.localhost'], ips: ['203.0.113.7', '127.0.0.1'] })).toBe(true);
    expect(authorityPermits(wide.cert, { dns: ['other.kim.example'], ips: ['203.0.113.8'] })).toBe(false);
  });

  it('is made again only when it cannot vouch for a new name; the certificate follows the names', async () => {
    const first = await ensureCertificates(dir, names);
    expect(first).toMatchObject({ madeAuthority: true, madeLeaf: true });
    expect(await ensureCertificates(dir, names)).toMatchObject({ madeAuthority: false, madeLeaf: false });
    // A new local name: same authority, new certificate naming it.
    const more = await ensureCertificates(dir, { ...names, dns: [...names.dns, 'hearth.internal'] });
    expect(more).toMatchObject({ madeAuthority: false, madeLeaf: true });
    expect(more.ca).toBe(first.ca);
    expect(new X509Certificate(more.chain).checkHost('hearth.internal')).toBe('hearth.internal');
    // A public name the authority was not made for: a new authority (to be trusted again).
    const outside = await ensureCertificates(dir, { ...names, dns: [...names.dns, 'hearth.kim.example'] });
    expect(outside).toMatchObject({ madeAuthority: true, madeLeaf: true });
    expect(outside.ca).not.toBe(first.ca);
  });
});

describe('what the certificate names', () => {
  it('its names, localhost, loopback, and the bind address when it is on a network', () => {
    expect(certificateNames({ bind: '127.0.0.1', httpsNames: ['hearth.localhost'] })).toEqual({ dns: ['hearth.localhost', 'localhost'], ips: ['127.0.0.1', '::1'] });
    expect(certificateNames({ bind: '192.168.1.20', httpsNames: ['hearth.localhost', '10.0.0.5'] })).toEqual({
      dns: ['hearth.localhost', 'localhost'],
      ips: ['10.0.0.5', '127.0.0.1', '::1', '192.168.1.20'],
    });
  });
});

describe('URL bases', () => {
  it('moves whole bases only', () => {
    const move = rebase('http://127.0.0.1:7470', 'https://hearth.example');
    expect(move?.apply('{"url":"http://127.0.0.1:7470/@a","x":"http://127.0.0.1:74701/b","y":"http://127.0.0.1:7470"}')).toBe(
      '{"url":"https://hearth.example/@a","x":"http://127.0.0.1:74701/b","y":"https://hearth.example"}',
    );
    expect(rebase('http://127.0.0.1:7470', 'http://127.0.0.1:7470')).toBeNull();
  });

  it('believes forwarding headers from loopback peers only', () => {
    for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopbackAddress(a), a).toBe(true);
    for (const a of ['192.168.1.2', '10.0.0.1', '::ffff:192.168.1.2', 'fe80::1', undefined, '']) expect(isLoopbackAddress(a), String(a)).toBe(false);
  });
});

describe('the HTTPS settings', () => {
  it('are off by default, and come from flags, the environment or the config file', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'hearth-https-config-'));
    try {
      expect(resolveConfig({ dataDir }, {})).toMatchObject({ httpsPort: null, httpsNames: ['hearth.localhost'] });
      expect(resolveConfig({ dataDir }, { HEARTH_HTTPS_PORT: '7471', HEARTH_HTTPS_NAME: 'Hearth.Internal, 192.168.1.20' })).toMatchObject({
        httpsPort: 7471,
        httpsNames: ['hearth.internal', '192.168.1.20'],
      });
      expect(resolveConfig({ dataDir, httpsPort: '7472', httpsName: ['kim-laptop.local'] }, { HEARTH_HTTPS_PORT: '7471' })).toMatchObject({ httpsPort: 7472, httpsNames: ['kim-laptop.local'] });
      expect(() => resolveConfig({ dataDir, httpsPort: 'many' }, {})).toThrow(/invalid port/);
      expect(() => resolveConfig({ dataDir, httpsName: 'not a name' }, {})).toThrow(/invalid HTTPS name/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
