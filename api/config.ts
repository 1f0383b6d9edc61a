import { chmodSync, existsSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** How new people may join this instance. */
export type RegistrationMode = 'open' | 'approval' | 'closed';

/**
 * How media of remote accounts (attachments, avatars, headers, emojis) reaches clients: `cache`
 * downloads a processed copy in the background and serves it; `proxy` downloads nothing ahead and
 * streams each file through `/media_proxy/…` when asked.
 */
export type RemoteMediaMode = 'cache' | 'proxy';

/** Everything the server needs to know about where and how it runs. */
export interface Config {
  /** Directory holding the SQLite file, media and the config file. */
  dataDir: string;
  /** Local port for the API (0 picks a free port, for tests). */
  port: number;
  /** Address the local port binds to; 127.0.0.1 unless told otherwise. */
  bind: string;
  /**
   * The instance's public origin (`https://kim.example`), its identity on the fediverse, fixed at
   * setup. `null` means local-only: no federation, URLs are built from the local address.
   */
  origin: string | null;
  registrations: RegistrationMode;
  /** Extra Host header names accepted besides loopback names, the bind address and the origin. */
  allowedHosts: string[];
  /** Allows `http://` origins and loopback peers, for tests and local experiments only. */
  federationAllowLoopback: boolean;
  /** Whether /api/v1/instance/peers answers (Mastodon's SHOW_DOMAIN_BLOCKS-like switch). */
  peersApi: boolean;
  /** Whether /api/v1/instance/activity answers. */
  activityApi: boolean;
  /** Largest request body accepted for JSON and form bodies, in bytes. */
  maxBodyBytes: number;
  /** Remote media cached locally (default) or proxied. */
  remoteMedia: RemoteMediaMode;
  /**
   * The relay the instance federates through (`https://relay.example`), or null. With one, the
   * instance dials the relay, enrols once (with `relayCode`) and takes its public origin from the
   * enrolment unless `origin` is set.
   */
  relay: string | null;
  /** The one-time enrolment code of the first start with a relay. */
  relayCode: string | null;
  /** Whether the relay also carries the client API, OAuth and streaming (phones from anywhere). */
  relayClients: boolean;
  /**
   * Every rate limit (Mastodon's numbers: 300 API requests per 5 minutes per token and per
   * address, 30 uploads per 30 minutes, 300 posts per 3 hours, …) is multiplied by this; 1 by
   * default. Apps on this machine are never limited.
   */
  rateLimitScale: number;
  /**
   * Port of the HTTPS listener for local clients (web clients such as Phanpy and Elk insist on
   * https://), on the same bind address as the HTTP port; null (the default) leaves it off, 0
   * picks a free port (tests).
   */
  httpsPort: number | null;
  /**
   * The names the HTTPS listener's certificate is made for, the first one the name to use
   * (`hearth.localhost` by default); IP addresses go in as such. They are accepted as Host names.
   */
  httpsNames: string[];
  /**
   * The SMTP server mail goes out through (e-mail confirmation, password reset, sign-up approval,
   * staff notices), or null (the default): then every message is kept for the owner to read
   * (`GET /api/hearth/mail`, `hearth mail list`) and nothing fails.
   */
  mail: MailConfig | null;
  /** The JSON config file: the one read at start (`--config`, HEARTH_CONFIG, or `hearth.json` in the data directory), which the API writes settings into. */
  configFile: string;
  /**
   * Whether the public origin or the relay came from a flag or the environment, which win over the
   * config file: then choosing how the instance is reached through the API cannot take effect.
   */
  reachFromCommandLine: boolean;
}

/** How to reach the SMTP server (the config file's `mail` object, or HEARTH_SMTP_* variables). */
export interface MailConfig {
  host: string;
  /** 465 with `secure`, else 587 unless given. */
  port: number;
  /** TLS from the first byte (port 465); otherwise STARTTLS is used when the server offers it. */
  secure: boolean;
  /** Login, when the server wants one. */
  user: string | null;
  password: string | null;
  /** The sender, e.g. `Hearth <hearth@kim.example>`; by default `hearth@` the instance's host. */
  from: string | null;
}

/** The mail settings as the config file (`mail`) or the environment give them, before checking. */
export interface MailConfigInput {
  host?: string | undefined;
  port?: number | string | undefined;
  secure?: boolean | string | undefined;
  user?: string | undefined;
  password?: string | undefined;
  from?: string | undefined;
}

/** The port `hearth serve` binds when none is given. */
export const DEFAULT_PORT = 7470;

/** The data directory used when none is given: `$XDG_DATA_HOME/hearth` or `~/.local/share/hearth`. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_DATA_HOME && env.XDG_DATA_HOME.length > 0 ? env.XDG_DATA_HOME : join(homedir(), '.local', 'share');
  return join(base, 'hearth');
}

/** Options as they come from flags or a config file, before defaults are applied. */
export interface ConfigInput {
  dataDir?: string | undefined;
  port?: number | string | undefined;
  bind?: string | undefined;
  origin?: string | null | undefined;
  registrations?: string | undefined;
  allowedHosts?: string[] | string | undefined;
  federationAllowLoopback?: boolean | string | undefined;
  peersApi?: boolean | string | undefined;
  activityApi?: boolean | string | undefined;
  maxBodyBytes?: number | string | undefined;
  remoteMedia?: string | undefined;
  relay?: string | null | undefined;
  relayCode?: string | null | undefined;
  relayClients?: boolean | string | undefined;
  rateLimitScale?: number | string | undefined;
  httpsPort?: number | string | null | undefined;
  /** `httpsName` in the config file: one name or a list (comma-separated in flags and environment). */
  httpsName?: string[] | string | undefined;
  /** The config file's `mail` object (see MailConfig); HEARTH_SMTP_* variables override its members. */
  mail?: MailConfigInput | undefined;
  configFile?: string | undefined;
}

function parseBool(value: boolean | string | undefined, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  return !['0', 'f', 'false', 'no', 'off', ''].includes(value.toLowerCase());
}

function parsePort(value: number | string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`invalid port: ${value}`);
  return n;
}

/** The name of the HTTPS listener when none is given: a loopback name with a dot (Phanpy wants one). */
export const DEFAULT_HTTPS_NAME = 'hearth.localhost';

/** Checks the HTTPS listener's names: DNS names (lower-cased, no trailing dot) or IP addresses. */
function parseHttpsNames(value: string[] | string | undefined): string[] {
  if (value === undefined) return [DEFAULT_HTTPS_NAME];
  const names = (typeof value === 'string' ? value.split(',') : value).map((n) => n.trim().toLowerCase().replace(/\.$/, '')).filter(Boolean);
  if (names.length === 0) return [DEFAULT_HTTPS_NAME];
  for (const name of names) {
    const label = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
    if (isIP(name.replace(/^\[|\]$/g, '')) === 0 && (name.length > 253 || !name.split('.').every((l) => label.test(l)))) {
      throw new Error(`invalid HTTPS name: ${name}`);
    }
  }
  return [...new Set(names.map((n) => n.replace(/^\[|\]$/g, '')))];
}

/** The rate limit factor: a positive number, 1 when not given. */
function parseScale(value: number | string | undefined): number {
  if (value === undefined) return 1;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`the rate limit scale must be a positive number, not ${value}`);
  return n;
}

/** Checks and normalizes a public origin: scheme and host only, no path, https unless allowed. */
export function normalizeOrigin(value: string, allowHttp: boolean): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`invalid origin: ${value}`);
  }
  if (url.protocol !== 'https:' && !(allowHttp && url.protocol === 'http:')) {
    throw new Error(`the origin must be https:// (http:// only with --federation-allow-loopback): ${value}`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) {
    throw new Error(`the origin must be a scheme and host only: ${value}`);
  }
  return url.origin;
}

function envInput(env: NodeJS.ProcessEnv): ConfigInput {
  return {
    dataDir: env.HEARTH_DATA,
    port: env.HEARTH_PORT,
    bind: env.HEARTH_BIND,
    origin: env.HEARTH_ORIGIN,
    registrations: env.HEARTH_REGISTRATIONS,
    allowedHosts: env.HEARTH_ALLOWED_HOSTS,
    federationAllowLoopback: env.HEARTH_FEDERATION_ALLOW_LOOPBACK,
    remoteMedia: env.HEARTH_REMOTE_MEDIA,
    relay: env.HEARTH_RELAY,
    relayCode: env.HEARTH_RELAY_CODE,
    relayClients: env.HEARTH_RELAY_CLIENTS,
    rateLimitScale: env.HEARTH_RATE_LIMIT_SCALE,
    httpsPort: env.HEARTH_HTTPS_PORT,
    httpsName: env.HEARTH_HTTPS_NAME,
    mail: {
      host: env.HEARTH_SMTP_HOST,
      port: env.HEARTH_SMTP_PORT,
      secure: env.HEARTH_SMTP_SECURE,
      user: env.HEARTH_SMTP_USER,
      password: env.HEARTH_SMTP_PASSWORD,
      from: env.HEARTH_SMTP_FROM,
    },
  };
}

/**
 * The mail settings: each member from the flags' object, then the environment, then the config
 * file; null without a host (no mailer). A port or a sender that cannot be right is an error.
 */
function parseMail(...sources: (MailConfigInput | undefined)[]): MailConfig | null {
  const member = <K extends keyof MailConfigInput>(key: K): MailConfigInput[K] => {
    for (const source of sources) {
      const value = source?.[key];
      if (value !== undefined && value !== '') return value;
    }
    return undefined;
  };
  const host = member('host');
  if (typeof host !== 'string' || host.trim() === '') return null;
  const secure = parseBool(member('secure'), false);
  const port = parsePort(member('port'), secure ? 465 : 587);
  const from = member('from');
  if (from !== undefined && (typeof from !== 'string' || !from.includes('@'))) throw new Error(`the mail sender must be an e-mail address, not ${String(from)}`);
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return { host: host.trim(), port, secure, user: text(member('user')), password: text(member('password')), from: text(from) };
}

function pick<K extends keyof ConfigInput>(key: K, ...sources: ConfigInput[]): ConfigInput[K] {
  for (const source of sources) {
    const value = source[key];
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

/**
 * Resolves the configuration: command-line flags win over environment variables, which win over
 * the config file (`--config FILE`, or `hearth.json` in the data directory), which wins over the
 * defaults.
 */
export function resolveConfig(flags: ConfigInput = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const fromEnv = envInput(env);
  const dataDir = resolve(pick('dataDir', flags, fromEnv) ?? defaultDataDir(env));
  const configFile = flags.configFile ?? env.HEARTH_CONFIG ?? join(dataDir, 'hearth.json');
  let fromFile: ConfigInput = {};
  if (existsSync(configFile)) {
    try {
      fromFile = JSON.parse(readFileSync(configFile, 'utf8')) as ConfigInput;
    } catch (err) {
      throw new Error(`cannot read config file ${configFile}: ${(err as Error).message}`);
    }
  } else if (flags.configFile) {
    throw new Error(`config file not found: ${flags.configFile}`);
  }
  const federationAllowLoopback = parseBool(pick('federationAllowLoopback', flags, fromEnv, fromFile), false);
  const originRaw = pick('origin', flags, fromEnv, fromFile);
  const registrations = (pick('registrations', flags, fromEnv, fromFile) ?? 'closed') as string;
  if (!['open', 'approval', 'closed'].includes(registrations)) {
    throw new Error(`registrations must be open, approval or closed, not ${registrations}`);
  }
  const hosts = pick('allowedHosts', flags, fromEnv, fromFile);
  const remoteMedia = pick('remoteMedia', flags, fromEnv, fromFile) ?? 'cache';
  if (remoteMedia !== 'cache' && remoteMedia !== 'proxy') {
    throw new Error(`remote media must be cache or proxy, not ${String(remoteMedia)}`);
  }
  const relayRaw = pick('relay', flags, fromEnv, fromFile);
  const httpsPortRaw = pick('httpsPort', flags, fromEnv, fromFile);
  return {
    dataDir,
    port: parsePort(pick('port', flags, fromEnv, fromFile), DEFAULT_PORT),
    bind: pick('bind', flags, fromEnv, fromFile) ?? '127.0.0.1',
    origin: originRaw ? normalizeOrigin(originRaw, federationAllowLoopback) : null,
    registrations: registrations as RegistrationMode,
    allowedHosts: (typeof hosts === 'string' ? hosts.split(',') : (hosts ?? [])).map((h) => h.trim().toLowerCase()).filter(Boolean),
    federationAllowLoopback,
    peersApi: parseBool(pick('peersApi', flags, fromFile), true),
    activityApi: parseBool(pick('activityApi', flags, fromFile), true),
    maxBodyBytes: Number(pick('maxBodyBytes', flags, fromFile) ?? 1024 * 1024),
    remoteMedia,
    relay: relayRaw ? normalizeRelayUrl(relayRaw, federationAllowLoopback) : null,
    relayCode: pick('relayCode', flags, fromEnv, fromFile)?.trim() || null,
    relayClients: parseBool(pick('relayClients', flags, fromEnv, fromFile), false),
    rateLimitScale: parseScale(pick('rateLimitScale', flags, fromEnv, fromFile)),
    httpsPort: httpsPortRaw === undefined || httpsPortRaw === null ? null : parsePort(httpsPortRaw, 0),
    httpsNames: parseHttpsNames(pick('httpsName', flags, fromEnv, fromFile)),
    mail: parseMail(flags.mail, fromEnv.mail, fromFile.mail),
    configFile,
    reachFromCommandLine: [flags.origin, fromEnv.origin, flags.relay, fromEnv.relay].some((v) => v !== undefined && v !== null && v !== ''),
  };
}

/**
 * Writes settings into a JSON config file as `resolveConfig` reads it: the given keys are set (a
 * value of `undefined` removes the key), every other key is kept as it was. The new file replaces
 * the old one at once (written beside it, then renamed), keeps its permissions (owner-only for a
 * new file: it may hold the SMTP password), and is pretty-printed. A file that is not a JSON
 * object is an error, and is left alone.
 */
export function updateConfigFile(file: string, changes: Readonly<Record<string, unknown>>): void {
  let current: Record<string, unknown> = {};
  if (existsSync(file)) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (err) {
      throw new Error(`cannot read config file ${file}: ${(err as Error).message}`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`config file ${file} is not a JSON object`);
    current = parsed as Record<string, unknown>;
  }
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(changes)) {
    if (value === undefined) delete next[key];
    else next[key] = value;
  }
  const mode = existsSync(file) ? statSync(file).mode & 0o777 : 0o600;
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    writeFileSync(temporary, `${JSON.stringify(next, null, 2)}\n`, { mode });
    chmodSync(temporary, mode);
    renameSync(temporary, file);
  } catch (err) {
    rmSync(temporary, { force: true });
    throw err;
  }
}

/** Checks a relay address: scheme, host and port only; https unless loopback federation is allowed. */
export function normalizeRelayUrl(value: string, allowHttp: boolean): string {
  try {
    return normalizeOrigin(value, allowHttp);
  } catch (err) {
    throw new Error((err as Error).message.replace(/origin/g, 'relay address'));
  }
}
