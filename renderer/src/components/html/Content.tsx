import type { JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { localMediaUrl } from '../media/local';
import { sanitizeHtml, type EmojiLike } from './sanitize';

/** A mention or tag the content links to, so that clicking it stays in the app. */
export interface ContentLinks {
  mentions?: readonly { url: string; acct: string }[];
  tags?: readonly { name: string; url: string }[];
}

/**
 * Remote or local HTML (a post, a bio, a profile field's value, an announcement), sanitized again
 * here; links to mentioned accounts and hashtags open inside the app, other links outside.
 */
export function Content(props: { html: string; emojis?: readonly EmojiLike[]; links?: ContentLinks; class?: string; lang?: string | null }): JSX.Element {
  const { route } = useLocation();
  const safe = useMemo(() => sanitizeHtml(props.html, props.emojis ?? []), [props.html, props.emojis]);
  const onClick = (event: MouseEvent) => {
    const anchor = (event.target as Element | null)?.closest?.('a');
    if (!anchor || event.ctrlKey || event.metaKey || event.shiftKey) return;
    const href = anchor.getAttribute('href') ?? '';
    const mention = props.links?.mentions?.find((m) => m.url === href);
    if (mention) {
      event.preventDefault();
      route(`/@${mention.acct}`);
      return;
    }
    const tag = props.links?.tags?.find((t) => t.url.toLowerCase() === href.toLowerCase()) ?? (anchor.classList.contains('hashtag') ? { name: anchor.textContent?.replace(/^#/, '') ?? '' } : null);
    if (tag && tag.name) {
      event.preventDefault();
      route(`/tags/${encodeURIComponent(tag.name)}`);
    }
  };
  // The HTML was sanitized just above (sanitizeHtml): only formatting, links and emoji images.
  return <div class={props.class ?? 'content'} lang={props.lang ?? undefined} onClick={onClick} dangerouslySetInnerHTML={{ __html: safe }} />;
}

/** Plain text (a display name, a poll option, a field name) with custom emojis, never parsed as HTML. */
export function Emojify(props: { text: string; emojis?: readonly EmojiLike[] }): JSX.Element {
  const parts = useMemo(() => {
    const emojis = props.emojis ?? [];
    if (emojis.length === 0) return [props.text];
    const byCode = new Map(emojis.map((e) => [e.shortcode, e]));
    const out: (string | EmojiLike)[] = [];
    let last = 0;
    for (const match of props.text.matchAll(/:([a-zA-Z0-9_]{2,}):/g)) {
      const emoji = byCode.get(match[1] ?? '');
      // An emoji whose picture is not here yet stays as its :shortcode: text.
      if (!emoji || match.index === undefined || !localMediaUrl(emoji.url)) continue;
      if (match.index > last) out.push(props.text.slice(last, match.index));
      out.push(emoji);
      last = match.index + match[0].length;
    }
    if (last < props.text.length) out.push(props.text.slice(last));
    return out;
  }, [props.text, props.emojis]);
  return (
    <>
      {parts.map((p, i) => (typeof p === 'string' ? p : <img key={i} class="custom-emoji" src={p.url} alt={`:${p.shortcode}:`} title={`:${p.shortcode}:`} draggable={false} />))}
    </>
  );
}
