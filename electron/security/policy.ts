import { originOf } from '../ipc/sender.js';

/*
 * The window's security policy as plain decisions (docs/security.md says where each checklist
 * item lives). The main process wires them to Electron's hooks:
 *
 *   const guard = createNavigationGuard({ appOrigin, openExternal: (url) => shell.openExternal(url) });
 *   contents.on('will-navigate', (e, url) => { if (!guard.onWillNavigate(url)) e.preventDefault(); });
 *   contents.on('will-redirect', (e, url) => { if (!guard.onWillNavigate(url)) e.preventDefault(); });
 *   contents.setWindowOpenHandler(({ url }) => guard.onWindowOpen(url));
 *   session.setPermissionRequestHandler((_wc, permission, cb, details) =>
 *     cb(permissionDecision(permission, details.requestingUrl, appOrigin())));
 *   session.setPermissionCheckHandler((_wc, permission, origin) => permissionDecision(permission, origin, appOrigin()));
 */

/**
 * Whether the window may navigate to `url`: only within the app's own origin (the instance's
 * local address: the app, its OAuth pages). Anything else (another site, file:, data:,
 * javascript:, a custom scheme) is refused; `createNavigationGuard` offers it to the system
 * browser instead when it is a web or mail link.
 */
export function isAllowedNavigation(url: string, appOrigin: string | null): boolean {
  if (!appOrigin) return false;
  const expected = originOf(appOrigin);
  return expected !== null && originOf(url) === expected;
}

/** Whether a link goes to the system's browser or mail app, and the URL to give it. */
export type ExternalOpenDecision = { open: true; url: string } | { open: false; reason: string };

/** The schemes the system may open for a link in Hearth: web pages and e-mail. */
const EXTERNAL_SCHEMES = new Set(['https:', 'http:', 'mailto:']);

/** Longer than any link a post holds: a URL this long is an attack on the handler, not a link. */
const MAX_EXTERNAL_URL = 8192;

/**
 * Whether a link may be handed to the operating system (`shell.openExternal`): only https:,
 * http: and mailto: URLs, well formed, without credentials in them (`https://bank@evil.example`
 * reads as the bank's), not absurdly long. Everything else (file:, smb:, javascript:, custom
 * schemes that would start other apps with arguments of the page's choosing) is refused. The URL
 * given back is the parsed, normalised one, never the raw string.
 */
export function externalOpenDecision(url: string): ExternalOpenDecision {
  if (url.length > MAX_EXTERNAL_URL) return { open: false, reason: 'the link is too long' };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { open: false, reason: 'the link is not a valid URL' };
  }
  if (!EXTERNAL_SCHEMES.has(parsed.protocol)) return { open: false, reason: `links of the kind “${parsed.protocol}” are not opened` };
  if (parsed.protocol !== 'mailto:') {
    if (!parsed.hostname) return { open: false, reason: 'the link names no site' };
    if (parsed.username || parsed.password) return { open: false, reason: 'the link carries a user name or password' };
  }
  return { open: true, url: parsed.href };
}

/** The one permission the app is granted: showing notifications. */
const GRANTED_PERMISSIONS = new Set(['notifications']);

/**
 * Whether a permission request (or check) is granted: only `notifications`, and only for the
 * app's own origin. Camera, microphone, geolocation, clipboard reading, MIDI, HID, serial,
 * `openExternal` and everything else are refused, whoever asks.
 */
export function permissionDecision(permission: string, requestingUrl: string, appOrigin: string | null): boolean {
  if (!GRANTED_PERMISSIONS.has(permission)) return false;
  return isAllowedNavigation(requestingUrl, appOrigin);
}

/** What the navigation hooks need. */
export interface NavigationGuardDeps {
  /** The instance's local origin the window shows (null while no server runs). */
  appOrigin(): string | null;
  /** `shell.openExternal(url)`: the system's browser or mail app. */
  openExternal(url: string): void | Promise<void>;
  /** Told of each refused link (for the log). */
  refused?(url: string, reason: string): void;
}

/** Electron's answer to `setWindowOpenHandler`: Hearth never opens a second window. */
export interface WindowOpenAnswer {
  action: 'deny';
}

/**
 * The window's navigation hooks. `onWillNavigate(url)` says whether the window may go there
 * (the app's origin only); a refused web or mail link is opened by the system instead.
 * `onWindowOpen(url)` always refuses a new window, and opens web and mail links (a post's
 * `target=_blank` links) in the system's browser after the same check.
 */
export function createNavigationGuard(deps: NavigationGuardDeps): { onWillNavigate(url: string): boolean; onWindowOpen(url: string): WindowOpenAnswer } {
  const elsewhere = (url: string): void => {
    const decision = externalOpenDecision(url);
    if (decision.open) void Promise.resolve(deps.openExternal(decision.url)).catch((error: unknown) => deps.refused?.(url, String(error)));
    else deps.refused?.(url, decision.reason);
  };
  return {
    onWillNavigate(url) {
      if (isAllowedNavigation(url, deps.appOrigin())) return true;
      elsewhere(url);
      return false;
    },
    onWindowOpen(url) {
      elsewhere(url);
      return { action: 'deny' };
    },
  };
}
