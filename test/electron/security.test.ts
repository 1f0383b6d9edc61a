import { FuseV1Options } from '@electron/fuses';
import { describe, expect, it } from 'vitest';
import { electronFuses } from '../../electron/security/fuses.js';
import { createNavigationGuard, externalOpenDecision, isAllowedNavigation, permissionDecision } from '../../electron/security/policy.js';
import { windowWebPreferences } from '../../electron/security/web-preferences.js';

const APP = 'http://127.0.0.1:7470';

describe('security policy: navigation', () => {
  it('stays within the app’s origin', () => {
    for (const url of [`${APP}/`, `${APP}/settings/desktop`, `${APP}/oauth/authorize?client_id=x`, `${APP}/@kim#top`]) expect(isAllowedNavigation(url, APP), url).toBe(true);
    for (const url of [
      'https://evil.example/',
      'http://127.0.0.1:7471/',
      'http://localhost:7470/',
      'https://127.0.0.1:7470/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'data:text/html,<script>alert(1)</script>',
      'about:blank',
      `blob:${APP}/abc`,
      'web+ap://mastodon.social/@Gargron',
      'not a url',
    ]) {
      expect(isAllowedNavigation(url, APP), url).toBe(false);
    }
    expect(isAllowedNavigation(`${APP}/`, null)).toBe(false);
  });

  it('hands only web and mail links to the system, normalised', () => {
    expect(externalOpenDecision('https://mastodon.social/@Gargron')).toEqual({ open: true, url: 'https://mastodon.social/@Gargron' });
    expect(externalOpenDecision('HTTP://Example.COM/a b')).toEqual({ open: true, url: 'http://example.com/a%20b' });
    expect(externalOpenDecision('mailto:kim@example.com?subject=hi')).toEqual({ open: true, url: 'mailto:kim@example.com?subject=hi' });
    const refused = [
      'file:///C:/Windows/System32/calc.exe',
      'javascript:alert(1)',
      'smb://attacker.example/share',
      'ms-settings:privacy',
      'vscode://file/etc/passwd',
      'web+ap://mastodon.social/@Gargron',
      'data:text/html,x',
      'https://bank.example@evil.example/',
      'https://user:secret@example.com/',
      'http://',
      `https://example.com/${'a'.repeat(9000)}`,
      'not a url',
    ];
    for (const url of refused) expect(externalOpenDecision(url).open, url).toBe(false);
    const why = externalOpenDecision('ms-settings:privacy');
    expect(why.open === false && why.reason).toMatch(/“ms-settings:” are not opened/);
  });

  it('the guard lets the app navigate, opens other links in the system browser, and never opens a window', async () => {
    const opened: string[] = [];
    const refused: string[] = [];
    const guard = createNavigationGuard({ appOrigin: () => APP, openExternal: (url) => void opened.push(url), refused: (url) => void refused.push(url) });
    expect(guard.onWillNavigate(`${APP}/notifications`)).toBe(true);
    expect(guard.onWillNavigate('https://example.com/post')).toBe(false);
    expect(guard.onWillNavigate('file:///etc/passwd')).toBe(false);
    expect(guard.onWindowOpen('https://example.com/other')).toEqual({ action: 'deny' });
    expect(guard.onWindowOpen('javascript:alert(1)')).toEqual({ action: 'deny' });
    expect(guard.onWindowOpen(`${APP}/settings`)).toEqual({ action: 'deny' });
    await Promise.resolve();
    // The app's own address in a new window is a link like any other: the browser gets it.
    expect(opened).toEqual(['https://example.com/post', 'https://example.com/other', `${APP}/settings`]);
    expect(refused).toEqual(['file:///etc/passwd', 'javascript:alert(1)']);
  });
});

describe('security policy: permissions', () => {
  it('grants notifications to the app, and nothing else to anyone', () => {
    expect(permissionDecision('notifications', `${APP}/`, APP)).toBe(true);
    expect(permissionDecision('notifications', APP, APP)).toBe(true);
    expect(permissionDecision('notifications', 'https://evil.example/', APP)).toBe(false);
    expect(permissionDecision('notifications', `${APP}/`, null)).toBe(false);
    for (const permission of ['media', 'geolocation', 'clipboard-read', 'clipboard-sanitized-write', 'openExternal', 'hid', 'serial', 'usb', 'midiSysex', 'pointerLock', 'fullscreen', 'display-capture', 'unknown']) {
      expect(permissionDecision(permission, `${APP}/`, APP), permission).toBe(false);
    }
  });
});

describe('security policy: the window and the packaged app', () => {
  it('a sandboxed, isolated window without Node, with the preload given', () => {
    const prefs = windowWebPreferences({ preload: '/opt/Hearth/resources/app.asar/dist/electron/preload.cjs', platform: 'linux', devTools: false });
    expect(prefs).toMatchObject({
      preload: '/opt/Hearth/resources/app.asar/dist/electron/preload.cjs',
      sandbox: true,
      contextIsolation: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      experimentalFeatures: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      devTools: false,
    });
    expect(prefs).not.toHaveProperty('enableBlinkFeatures');
    // Spell checking only where the system's checker does it (nothing downloaded).
    expect(prefs.spellcheck).toBe(false);
    expect(windowWebPreferences({ preload: '/p', platform: 'darwin', devTools: true }).spellcheck).toBe(true);
    expect(windowWebPreferences({ preload: '/p', platform: 'win32', devTools: true }).spellcheck).toBe(true);
  });

  it('sets every fuse Electron has, each to its safe position', () => {
    const known = Object.keys(FuseV1Options)
      .filter((key) => Number.isNaN(Number(key)))
      .map((name) => name[0]?.toLowerCase() + name.slice(1));
    expect(Object.keys(electronFuses).sort()).toEqual(known.sort());
    expect(electronFuses).toMatchObject({
      runAsNode: false,
      enableNodeOptionsEnvironmentVariable: false,
      enableNodeCliInspectArguments: false,
      onlyLoadAppFromAsar: true,
      enableEmbeddedAsarIntegrityValidation: true,
      grantFileProtocolExtraPrivileges: false,
      enableCookieEncryption: true,
    });
  });
});
