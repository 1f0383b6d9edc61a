/**
 * The Host allow-list against DNS rebinding, as pure functions: a web page on some other name that
 * resolves to 127.0.0.1 must not reach the local API. Used where requests bypass Express
 * (WebSocket upgrades); the HTTP middleware applies the same rule.
 */

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]', '::1'];

/** The host name part of a Host header value, lower case, without the port (IPv6 keeps its brackets). */
export function hostName(header: string): string {
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) return value.slice(0, value.indexOf(']') + 1);
  const colon = value.lastIndexOf(':');
  return colon === -1 ? value : value.slice(0, colon);
}

/** The names a configuration accepts beyond loopback: configured names, the bind address's host and the public origin's host. */
export function allowedHostNames(config: { allowedHosts: readonly string[]; bind: string; origin: string | null }): string[] {
  const names = [...config.allowedHosts, hostName(config.bind)];
  if (config.origin) names.push(new URL(config.origin).hostname.toLowerCase());
  return names;
}

/**
 * True when a request with this Host header may be served: loopback names (and *.localhost) and the
 * names in `allowed` pass; `*` in `allowed` accepts any host, even a missing one.
 */
export function isHostAllowed(header: string | undefined, allowed: readonly string[]): boolean {
  if (allowed.includes('*')) return true;
  const name = header ? hostName(header) : '';
  if (!name) return false;
  return LOOPBACK_NAMES.includes(name) || name.endsWith('.localhost') || allowed.includes(name);
}
