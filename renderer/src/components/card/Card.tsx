import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { Blurhash } from '../media/Blurhash';
import { localMediaUrl } from '../media/local';
import './card.css';

/** A number from a remote entity, kept only when it is a sane positive size. */
function size(n: number | null | undefined): number | null {
  return typeof n === 'number' && Number.isFinite(n) && n > 0 && n < 100_000 ? Math.round(n) : null;
}

/**
 * A link preview card: the picture (blurhash first, in a box sized from the card's width and
 * height, so nothing moves when it loads), the provider, the title and the description, all as
 * plain text; the whole card is one link that opens outside the app.
 */
export function Card(props: { card: mastodon.v1.PreviewCard }): JSX.Element | null {
  const c = props.card;
  if (!/^https?:\/\//i.test(c.url)) return null;
  const w = size(c.width);
  const h = size(c.height);
  let host = '';
  try {
    host = new URL(c.url).host;
  } catch {
    return null;
  }
  return (
    <a class="card" href={c.url} target="_blank" rel="noopener noreferrer nofollow">
      {c.image && (
        <span class={`card-image${w && h && w < h * 1.3 ? ' card-image-small' : ''}`} style={{ aspectRatio: w && h ? `${w} / ${h}` : '16 / 9' }}>
          <Blurhash hash={c.blurhash} />
          {localMediaUrl(c.image) && <img src={localMediaUrl(c.image)} alt="" loading="lazy" decoding="async" />}
        </span>
      )}
      <span class="card-text">
        <span class="card-provider">{c.providerName || host}</span>
        <strong class="card-title">{c.title || c.url}</strong>
        {c.description && <span class="card-description">{c.description}</span>}
      </span>
    </a>
  );
}
