import { createHash, createPublicKey, generateKeyPair, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import forge from 'node-forge';

/**
 * The local certificate authority of the HTTPS listener and the certificates it issues, made with
 * node-forge (which writes the X.509 structures) and node:crypto (keys and signatures, so that
 * nothing blocks the event loop for long). The authority is name-constrained: it can only vouch
 * for local names (localhost, .local, .internal, home.arpa, the listener's own names) and private
 * addresses, so a copy of its key, trusted on a computer or a phone, cannot be used to
 * impersonate anyone else's site.
 */

declare module 'node-forge' {
  namespace pki {
    /** The to-be-signed part of a certificate, as forge builds it (not in forge's type definitions). */
    function getTBSCertificate(cert: Certificate): asn1.Asn1;
  }
}

/** A key pair and the certificate of its public key, in PEM. */
export interface CertifiedKey {
  /** PKCS#8 private key. */
  key: string;
  cert: string;
}

/** What a certificate is made for: DNS names and IP addresses. */
export interface TlsNames {
  dns: string[];
  ips: string[];
}

/** How long the authority lives (renewing it means trusting it again everywhere). */
export const AUTHORITY_DAYS = 10 * 365;
/** How long a leaf certificate lives: within the 398 days Apple's and browsers' rules allow. */
export const LEAF_DAYS = 397;

/** DNS names the authority may vouch for besides the listener's own: names that only exist locally. */
export const LOCAL_DNS_SUFFIXES: readonly string[] = ['localhost', 'local', 'internal', 'home.arpa'];
/** Address ranges the authority may vouch for: loopback, private, link-local and shared (CGNAT, VPN meshes). */
export const LOCAL_IP_RANGES: readonly string[] = [
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '100.64.0.0/10',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
];

const DAY_MS = 24 * 60 * 60 * 1000;
const NAME_CONSTRAINTS_OID = '2.5.29.30';
const generateKeyPairAsync = promisify(generateKeyPair);

async function rsaKeyPair(bits: number): Promise<{ privateKey: string; publicKey: string }> {
  return generateKeyPairAsync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
}

/** A random positive serial number (hex), as CAs must use. */
function serialNumber(): string {
  const bytes = randomBytes(16);
  // INTEGERs are signed: a clear top bit keeps the serial positive, a set next bit keeps it 16 bytes long.
  bytes[0] = ((bytes[0] ?? 0) & 0x7f) | 0x40;
  return bytes.toString('hex');
}

/** Signs a certificate with a PEM private key: forge encodes, node:crypto signs (RSA, SHA-256). */
function signCertificate(cert: forge.pki.Certificate, signerKey: string): string {
  cert.signatureOid = forge.pki.oids.sha256WithRSAEncryption ?? '1.2.840.113549.1.1.11';
  cert.siginfo.algorithmOid = cert.signatureOid;
  cert.tbsCertificate = forge.pki.getTBSCertificate(cert);
  const tbs = Buffer.from(forge.asn1.toDer(cert.tbsCertificate).getBytes(), 'binary');
  cert.signature = sign('sha256', tbs, signerKey).toString('binary');
  return forge.pki.certificateToPem(cert);
}

/** The bytes of an IP address (4 or 16), or null for anything else. */
export function ipBytes(address: string): Buffer | null {
  const kind = isIP(address);
  if (kind === 4) return Buffer.from(address.split('.').map(Number));
  if (kind !== 6) return null;
  let text = address.toLowerCase();
  // An IPv4 tail (`::ffff:10.0.0.1`) is two groups.
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const before = head ? head.split(':') : [];
  const after = rest ? rest.split(':') : [];
  const groups = rest === undefined ? before : [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  const out = Buffer.alloc(16);
  groups.forEach((g, i) => out.writeUInt16BE(parseInt(g, 16), i * 2));
  return out;
}

/** An address range `a.b.c.d/n` or `x::/n` as the address and mask bytes of a name constraint. */
function rangeBytes(range: string): Buffer {
  const [address = '', bitsText = ''] = range.split('/');
  const bytes = ipBytes(address) ?? Buffer.alloc(0);
  const bits = bitsText === '' ? bytes.length * 8 : Number(bitsText);
  const mask = Buffer.alloc(bytes.length);
  for (let i = 0; i < bytes.length; i++) mask[i] = bits >= (i + 1) * 8 ? 0xff : bits <= i * 8 ? 0 : (0xff << (8 - (bits - i * 8))) & 0xff;
  return Buffer.concat([bytes, mask]);
}

/** The DER value of a NameConstraints extension permitting these DNS subtrees and address ranges only. */
function nameConstraints(dns: readonly string[], ranges: readonly string[]): string {
  const { asn1 } = forge;
  const subtree = (type: number, value: string) =>
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [asn1.create(asn1.Class.CONTEXT_SPECIFIC, type, false, value)]);
  const permitted = asn1.create(asn1.Class.CONTEXT_SPECIFIC, 0, true, [...dns.map((d) => subtree(2, d)), ...ranges.map((r) => subtree(7, rangeBytes(r).toString('binary')))]);
  return asn1.toDer(asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [permitted])).getBytes();
}

/** Whether a DNS name is one of `suffixes` or under one of them. */
function underSuffix(name: string, suffixes: readonly string[]): boolean {
  return suffixes.some((s) => name === s || name.endsWith(`.${s}`));
}

/** Whether an address lies in a range given as address and mask bytes. */
function inRange(address: string, range: Buffer): boolean {
  const bytes = ipBytes(address);
  if (!bytes || range.length !== bytes.length * 2) return false;
  for (let i = 0; i < bytes.length; i++) {
    const mask = range[bytes.length + i] ?? 0;
    if (((bytes[i] ?? 0) & mask) !== ((range[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** What an authority must permit to vouch for `names`: the local defaults, plus anything of `names` outside them. */
function constraintsFor(names: TlsNames): { dns: string[]; ranges: string[] } {
  const dns = [...LOCAL_DNS_SUFFIXES, ...names.dns.filter((n) => !underSuffix(n, LOCAL_DNS_SUFFIXES))];
  const ranges = [...LOCAL_IP_RANGES];
  const localRanges = LOCAL_IP_RANGES.map(rangeBytes);
  for (const ip of names.ips) if (!localRanges.some((r) => inRange(ip, r))) ranges.push(`${ip}/${isIP(ip) === 6 ? 128 : 32}`);
  return { dns, ranges };
}

/**
 * Makes a certificate authority (RSA 3072, ten years) whose name constraints permit local names,
 * private addresses and whatever of `names` lies outside them.
 */
export async function makeAuthority(names: TlsNames, label: string, now: Date = new Date()): Promise<CertifiedKey> {
  const keys = await rsaKeyPair(3072);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - DAY_MS);
  cert.validity.notAfter = new Date(now.getTime() + AUTHORITY_DAYS * DAY_MS);
  const subject = [
    { name: 'commonName', value: `Hearth local CA ${label} ${now.toISOString().slice(0, 10)}` },
    { name: 'organizationName', value: 'Hearth' },
  ];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  const { dns, ranges } = constraintsFor(names);
  cert.setExtensions([
    { name: 'basicConstraints', cA: true, pathLenConstraint: 0, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
    // RFC 5280 wants name constraints critical: a client that cannot apply them must refuse the CA.
    { id: NAME_CONSTRAINTS_OID, critical: true, value: nameConstraints(dns, ranges) },
  ]);
  return { key: keys.privateKey, cert: signCertificate(cert, keys.privateKey) };
}

/** Makes a server certificate (RSA 2048, LEAF_DAYS) for `names`, issued by `authority`. */
export async function makeLeaf(authority: CertifiedKey, names: TlsNames, now: Date = new Date()): Promise<CertifiedKey> {
  const keys = await rsaKeyPair(2048);
  const ca = forge.pki.certificateFromPem(authority.cert);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(keys.publicKey);
  cert.serialNumber = serialNumber();
  cert.validity.notBefore = new Date(now.getTime() - DAY_MS);
  cert.validity.notAfter = new Date(now.getTime() + LEAF_DAYS * DAY_MS);
  cert.setSubject([
    { name: 'commonName', value: names.dns[0] ?? names.ips[0] ?? 'localhost' },
    { name: 'organizationName', value: 'Hearth' },
  ]);
  cert.setIssuer(ca.subject.attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false, critical: true },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [...names.dns.map((value) => ({ type: 2, value })), ...names.ips.map((ip) => ({ type: 7, ip }))] },
    { name: 'subjectKeyIdentifier' },
    { name: 'authorityKeyIdentifier', keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
  ]);
  return { key: keys.privateKey, cert: signCertificate(cert, authority.key) };
}

/** Whether an authority's name constraints permit every name and address of `names`. */
export function authorityPermits(authorityCert: string, names: TlsNames): boolean {
  const ca = forge.pki.certificateFromPem(authorityCert);
  // forge reads the extension's permitted subtrees: dNSName (2) as text, iPAddress (7) as address and mask bytes.
  const ext = ca.getExtension({ name: 'nameConstraints' }) as { permittedSubtrees?: { type: number; value: string }[] } | undefined;
  const subtrees = ext?.permittedSubtrees ?? [];
  const dns = subtrees.filter((s) => s.type === 2).map((s) => s.value.toLowerCase());
  const ranges = subtrees.filter((s) => s.type === 7).map((s) => Buffer.from(s.value, 'binary'));
  return names.dns.every((n) => underSuffix(n, dns)) && names.ips.every((ip) => ranges.some((r) => inRange(ip, r)));
}

/**
 * The base64 SHA-256 hash of a certificate's public key (SubjectPublicKeyInfo), as HPKP pins and
 * Chromium's `--ignore-certificate-errors-spki-list` name keys.
 */
export function spkiHash(certPem: string): string {
  const der = createPublicKey(certPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64');
}
