import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { authorityPermits, makeAuthority, makeLeaf, type CertifiedKey, type TlsNames } from './authority.js';

/**
 * The HTTPS listener's certificates, kept in the data directory (`tls/`): the local certificate
 * authority (`ca.pem`, the file people trust, and `ca-key.pem`) and the server certificate it
 * issued (`cert.pem`, `key.pem`). Made on first use; the server certificate is made again a month
 * before it expires or when the names it must cover change, the authority only when it nears its
 * own end (ten years) or cannot vouch for a new name, since every device must then trust it again.
 */

/** Renew this long before a certificate expires. */
export const RENEW_BEFORE_MS = 30 * 24 * 60 * 60 * 1000;

/** The files of the tls/ folder. */
export interface TlsFiles {
  dir: string;
  caCert: string;
  caKey: string;
  cert: string;
  key: string;
}

/** The paths of the certificate files in a data directory. */
export function tlsFiles(dataDir: string): TlsFiles {
  const dir = join(dataDir, 'tls');
  return { dir, caCert: join(dir, 'ca.pem'), caKey: join(dir, 'ca-key.pem'), cert: join(dir, 'cert.pem'), key: join(dir, 'key.pem') };
}

/** What the listener serves, and what was made this time. */
export interface TlsMaterial {
  /** The server certificate's private key. */
  key: string;
  /** The server certificate followed by the authority's (a client pinning the authority finds it in the chain). */
  chain: string;
  /** The authority's certificate (PEM). */
  ca: string;
  files: TlsFiles;
  /** When the server certificate expires. */
  notAfter: Date;
  /** Whether the authority was made now (every device must trust the new one). */
  madeAuthority: boolean;
  /** Whether the server certificate was made now. */
  madeLeaf: boolean;
}

function readPair(certFile: string, keyFile: string): CertifiedKey | null {
  if (!existsSync(certFile) || !existsSync(keyFile)) return null;
  return { cert: readFileSync(certFile, 'utf8'), key: readFileSync(keyFile, 'utf8') };
}

/** Writes a file whole or not at all (a crash never leaves half a key). */
function writeAtomically(path: string, text: string, mode: number): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode });
  renameSync(tmp, path);
}

/** The pair as an X509Certificate when it parses, its key belongs to it and it is not near its end. */
function usable(pair: CertifiedKey | null, now: Date): X509Certificate | null {
  if (!pair) return null;
  try {
    const cert = new X509Certificate(pair.cert);
    if (!cert.checkPrivateKey(createPrivateKey(pair.key))) return null;
    if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_BEFORE_MS || new Date(cert.validFrom).getTime() > now.getTime()) return null;
    return cert;
  } catch {
    // An unreadable file is made again, as if it were missing.
    return null;
  }
}

/** Whether a server certificate names every DNS name and address wanted. */
function covers(cert: X509Certificate, names: TlsNames): boolean {
  const san = (cert.subjectAltName ?? '').split(', ');
  return names.dns.every((n) => san.includes(`DNS:${n}`)) && names.ips.every((ip) => cert.checkIP(ip) !== undefined);
}

/**
 * Loads the certificates of a data directory, making (and keeping) whatever is missing, expiring
 * within RENEW_BEFORE_MS or no longer covering `names`.
 */
export async function ensureCertificates(dataDir: string, names: TlsNames, now: Date = new Date()): Promise<TlsMaterial> {
  const files = tlsFiles(dataDir);
  mkdirSync(files.dir, { recursive: true, mode: 0o700 });
  let authority = readPair(files.caCert, files.caKey);
  let authorityCert = usable(authority, now);
  let madeAuthority = false;
  if (!authority || !authorityCert || !authorityPermits(authority.cert, names)) {
    authority = await makeAuthority(names, hostname().split('.')[0] ?? 'hearth', now);
    authorityCert = new X509Certificate(authority.cert);
    writeAtomically(files.caKey, authority.key, 0o600);
    writeAtomically(files.caCert, authority.cert, 0o644);
    madeAuthority = true;
  }
  let leaf = readPair(files.cert, files.key);
  let leafCert = madeAuthority ? null : usable(leaf, now);
  if (leafCert && (!leafCert.checkIssued(authorityCert) || !leafCert.verify(authorityCert.publicKey) || !covers(leafCert, names))) leafCert = null;
  let madeLeaf = false;
  if (!leaf || !leafCert) {
    leaf = await makeLeaf(authority, names, now);
    leafCert = new X509Certificate(leaf.cert);
    writeAtomically(files.key, leaf.key, 0o600);
    writeAtomically(files.cert, leaf.cert, 0o644);
    madeLeaf = true;
  }
  return {
    key: leaf.key,
    chain: `${leaf.cert.trimEnd()}\n${authority.cert.trimEnd()}\n`,
    ca: authority.cert,
    files,
    notAfter: new Date(leafCert.validTo),
    madeAuthority,
    madeLeaf,
  };
}
