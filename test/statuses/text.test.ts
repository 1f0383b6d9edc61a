import { describe, expect, it } from 'vitest';
import {
  countableLength,
  extractEntities,
  formatStatusHtml,
  htmlToPlainText,
  normalizeTagName,
  sanitizeRemoteHtml,
  type FormatLinks,
} from '../../api/util/text/index.js';

const links: FormatLinks = {
  mention: (username, domain) => (username === 'ghost' ? null : { url: `https://h.example/@${username}${domain ? `@${domain}` : ''}`, username }),
  tag: (name) => `https://h.example/tags/${name}`,
};

describe('status text entities', () => {
  it('finds links, mentions and hashtags in order', () => {
    const e = extractEntities('hi @bob and @carol@remote.example see https://x.example/a #Cats!');
    expect(e.map((x) => x.kind)).toEqual(['mention', 'mention', 'url', 'hashtag']);
    expect(e[1]).toMatchObject({ username: 'carol', domain: 'remote.example' });
    expect(e[2]).toMatchObject({ url: 'https://x.example/a' });
    expect(e[3]).toMatchObject({ name: 'Cats' });
  });

  it('keeps sentence punctuation and unbalanced brackets out of links', () => {
    expect(extractEntities('go to https://x.example/page.')[0]).toMatchObject({ url: 'https://x.example/page' });
    expect(extractEntities('(see https://x.example/a_(b))')[0]).toMatchObject({ url: 'https://x.example/a_(b)' });
    expect(extractEntities('(see https://x.example/ab)')[0]).toMatchObject({ url: 'https://x.example/ab' });
  });

  it('does not find mentions or hashtags inside links, e-mail addresses or words', () => {
    const e = extractEntities('https://x.example/@bob#frag mail@bob.example a#b');
    expect(e).toHaveLength(1);
    expect(e[0]?.kind).toBe('url');
  });

  it('needs a letter in a hashtag and trims trailing separators', () => {
    expect(extractEntities('#123 #1a #日本語・')).toEqual([
      expect.objectContaining({ name: '1a' }),
      expect.objectContaining({ name: '日本語' }),
    ]);
  });

  it('accepts a port in a mention domain (local-only instances)', () => {
    expect(extractEntities('@bob@127.0.0.1:7470')[0]).toMatchObject({ username: 'bob', domain: '127.0.0.1:7470' });
  });

  it('normalizes tag names with NFKC and lower case', () => {
    expect(normalizeTagName('Ｃａｔｓ')).toBe('cats');
  });
});

describe('status length', () => {
  it('counts graphemes, a link as 23 and @user@domain as @user', () => {
    expect(countableLength('a'.repeat(500))).toBe(500);
    expect(countableLength(`https://x.example/${'p'.repeat(200)}`)).toBe(23);
    expect(countableLength('@bob@very.long.domain.example')).toBe(4);
    expect(countableLength('👩‍👩‍👧‍👦')).toBe(1);
    expect(countableLength('')).toBe(0);
  });
});

describe('status HTML', () => {
  it('escapes text and renders paragraphs and line breaks', () => {
    expect(formatStatusHtml('<b>hi</b> & "you"\nline\n\npara', links)).toBe(
      '<p>&lt;b&gt;hi&lt;/b&gt; &amp; &quot;you&quot;<br />line</p><p>para</p>',
    );
    expect(formatStatusHtml('   ', links)).toBe('');
  });

  it('links mentions of known accounts and leaves unknown ones as text', () => {
    const html = formatStatusHtml('@bob @ghost@far.example', links);
    expect(html).toContain('<a href="https://h.example/@bob" class="u-url mention">@<span>bob</span></a>');
    expect(html).toContain('@ghost@far.example');
    expect(html).not.toContain('ghost</span>');
  });

  it('shortens long links the way Mastodon does', () => {
    const html = formatStatusHtml('https://www.example.com/a/long/path/segment/that/keeps/going', links);
    expect(html).toContain('<span class="invisible">https://www.</span>');
    expect(html).toContain('<span class="ellipsis">example.com/a/long/path/segmen</span>');
    expect(html).toContain('<span class="invisible">t/that/keeps/going</span>');
  });

  it('links hashtags to the tag page', () => {
    expect(formatStatusHtml('#Cats', links)).toBe('<p><a href="https://h.example/tags/Cats" class="mention hashtag" rel="tag">#<span>Cats</span></a></p>');
  });
});

describe('remote HTML sanitizer', () => {
  it('drops scripts, event handlers and unsafe links, unwraps unknown elements', () => {
    const out = sanitizeRemoteHtml(
      '<p onclick="x()">Hi <script>alert(1)</script><a href="javascript:alert(1)">bad</a> <a href="https://ok.example" class="mention evil">ok</a><font color=red>d</font><img src=x onerror=y></p>',
    );
    expect(out).toBe(
      '<p>Hi <a rel="nofollow noopener noreferrer" target="_blank">bad</a> <a href="https://ok.example" class="mention" rel="nofollow noopener noreferrer" target="_blank">ok</a>d</p>',
    );
  });

  it('closes what was left open and escapes text', () => {
    expect(sanitizeRemoteHtml('<p><strong>a &lt; b')).toBe('<p><strong>a &lt; b</strong></p>');
  });

  it('drops the content of style and iframe elements', () => {
    expect(sanitizeRemoteHtml('a<style>p{}</style><iframe src="x">z</iframe>b')).toBe('ab');
  });
});

describe('plain text of HTML', () => {
  it('keeps line breaks and paragraphs and whole links', () => {
    const html = formatStatusHtml('one\ntwo\n\nhttps://www.example.com/a/long/path/segment/that/keeps/going &amp;', links);
    expect(htmlToPlainText(html)).toBe('one\ntwo\n\nhttps://www.example.com/a/long/path/segment/that/keeps/going &amp;');
  });
});
