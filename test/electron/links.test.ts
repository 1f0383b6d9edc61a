import { describe, expect, it } from 'vitest';
import { checkAcct, linkFromArgv, LINK_SCHEMES, MAX_TEXT, parseProtocolLink } from '../../electron/links/protocol.js';

/*
 * Links from other apps: web+mastodon:// and web+ap:// parsed into the app's paths, and everything
 * malformed or dangerous refused.
 */

const open = (uri: string) => `/open?uri=${encodeURIComponent(uri)}`;

const GOOD: [string, string][] = [
  // web+ap: an ActivityPub object or actor, the scheme swapped for https.
  ['web+ap://social.example/users/mona/statuses/123', open('https://social.example/users/mona/statuses/123')],
  ['web+ap://social.example/@mona', open('https://social.example/@mona')],
  ['WEB+AP://Social.Example:8443/objects/1?page=2#frag', open('https://social.example:8443/objects/1?page=2')],
  // web+mastodon: follow by handle (three spellings) or by URL.
  ['web+mastodon://follow?uri=acct:mona@social.example', open('acct:mona@social.example')],
  ['web+mastodon://follow?uri=acct%3Amona%40Social.Example', open('acct:mona@social.example')],
  ['web+mastodon://follow?uri=@mona@social.example', open('acct:mona@social.example')],
  ['web+mastodon://follow?uri=mona.b-c_d@social.example', open('acct:mona.b-c_d@social.example')],
  ['web+mastodon://follow?uri=https%3A%2F%2Fsocial.example%2Fusers%2Fmona', open('https://social.example/users/mona')],
  // share: a new post with the text (and a URL after it).
  ['web+mastodon://share?text=Hello%20world%20%23tag', '/compose?text=Hello%20world%20%23tag'],
  ['web+mastodon://share?text=Look+here&url=https%3A%2F%2Fnews.example%2Fa', `/compose?text=${encodeURIComponent('Look here https://news.example/a')}`],
  ['web+mastodon://share?text=line%0D%0Atwo%07', `/compose?text=${encodeURIComponent('line\ntwo')}`],
  // Wrappers of an object's URL.
  ['web+mastodon://social.example/@mona/123', open('https://social.example/@mona/123')],
  ['web+mastodon://https://social.example/@mona/123', open('https://social.example/@mona/123')],
  ['web+mastodon://https%3A%2F%2Fsocial.example%2F%40mona%2F123', open('https://social.example/@mona/123')],
  // Surrounding whitespace (as some launchers pass it) is trimmed.
  ['  web+ap://social.example/notes/9\n', open('https://social.example/notes/9')],
];

const EVIL: [string, string][] = [
  ['javascript:alert(1)', 'only'],
  ['web+mastodon:javascript:alert(1)', 'only'],
  ['web+ap:javascript:alert(1)//x.example', 'only'],
  ['https://social.example/@mona', 'only'],
  ['file:///etc/passwd', 'only'],
  ['web+ap://user:secret@social.example/x', 'public server'],
  ['web+ap://social.example@evil.example/x', 'public server'],
  ['web+mastodon://https://user:pw@social.example/x', 'public server'],
  ['web+mastodon://follow?uri=https://user:pw@social.example/x', 'not an address'],
  ['web+mastodon://follow?uri=http://social.example/users/mona', 'not an address'],
  ['web+mastodon://follow?uri=javascript:alert(1)', 'not an address'],
  ['web+mastodon://follow?uri=javascript:alert(1)//@x.example', 'not an address'],
  ['web+mastodon://follow?uri=acct:mona', 'not an address'],
  ['web+mastodon://follow?uri=acct:mona@localhost', 'not an address'],
  ['web+mastodon://follow?uri=acct:mona@127.0.0.1', 'not an address'],
  ['web+mastodon://follow?uri=acct:mo/na@social.example', 'not an address'],
  ['web+mastodon://follow?uri=acct:a@b@social.example', 'not an address'],
  ['web+mastodon://follow', 'names no account'],
  ['web+mastodon://share?text=', 'no text'],
  ['web+mastodon://share?text=%20%20', 'no text'],
  [`web+mastodon://share?text=${'x'.repeat(MAX_TEXT + 1)}`, 'too long'],
  ['web+ap://127.0.0.1/users/kim', 'public server'],
  ['web+ap://[::1]/users/kim', 'public server'],
  ['web+ap://localhost:7470/users/kim', 'public server'],
  ['web+ap://hearth.localhost/users/kim', 'public server'],
  ['web+ap://intranet/users/kim', 'public server'],
  ['web+ap://', 'public server'],
  [`web+ap://social.example/${'a'.repeat(2100)}`, 'public server'],
  [`web+ap://social.example/${'a'.repeat(5000)}`, 'too long'],
  ['web+ap://social.example/a b', 'characters'],
  ['web+ap://social.example/\u202egnp.exe', 'characters'],
  ['web+ap://social.example/x\u0000y', 'characters'],
  ['web+mastodon://https%3A%2F%2Fsocial.example%2F%E0%A4%A', 'public server'],
  ['web+mastodon://settings', 'does not know'],
  ['web+mastodon://follow/extra?uri=acct:mona@social.example', 'does not know'],
  ['web+mastodon://', 'does not know'],
  ['web+mastodon://[bad/follow?uri=acct:mona@social.example', 'malformed'],
  ['', 'only'],
];

describe('parseProtocolLink', () => {
  /** Test names: long links cut short. */
  const named = <T,>(rows: [string, T][]) => rows.map(([link, x]): [string, string, T] => [link.length > 70 ? `${link.slice(0, 70)}…` : link, link, x]);

  it.each(named(GOOD))('opens %s', (_name, link, path) => {
    expect(parseProtocolLink(link)).toEqual({ ok: true, path });
  });

  it.each(named(EVIL))('refuses %s', (_name, link, words) => {
    const result = parseProtocolLink(link);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toContain(words);
  });

  it('never yields a path outside /open and /compose, nor a scheme', () => {
    for (const [link] of [...GOOD, ...EVIL]) {
      const result = parseProtocolLink(link);
      if (result.ok) expect(result.path).toMatch(/^\/(open\?uri|compose\?text)=[^:/]*$/);
    }
  });

  it('handles: acct forms, and what is not one', () => {
    expect(checkAcct('acct:Mona@Social.Example')).toBe('acct:Mona@social.example');
    expect(checkAcct('@mona@social.example')).toBe('acct:mona@social.example');
    expect(checkAcct('mona@social.example:443')).toBeNull();
    expect(checkAcct('mona@-bad.example')).toBeNull();
    expect(checkAcct('.mona@social.example')).toBeNull();
  });
});

describe('linkFromArgv', () => {
  it('finds the link among a launch’s arguments, past the switches', () => {
    expect(linkFromArgv(['/opt/Hearth/hearth', '--no-sandbox', '--', 'web+ap://social.example/@mona'])).toBe(open('https://social.example/@mona'));
    expect(linkFromArgv(['C:\\Hearth\\Hearth.exe', '--allow-file-access-from-files', 'WEB+MASTODON://follow?uri=acct:mona@social.example'])).toBe(open('acct:mona@social.example'));
  });

  it('null without a link, or when the link is refused', () => {
    expect(linkFromArgv(['/opt/Hearth/hearth'])).toBeNull();
    expect(linkFromArgv([])).toBeNull();
    expect(linkFromArgv(['hearth', 'https://social.example/@mona'])).toBeNull();
    expect(linkFromArgv(['hearth', 'web+mastodon:javascript:alert(1)', 'web+ap://social.example/@mona'])).toBeNull();
  });

  it('the schemes to register', () => {
    expect(LINK_SCHEMES).toEqual(['web+mastodon', 'web+ap']);
  });
});
