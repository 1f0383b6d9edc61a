import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { usePreference } from '../../instance/prefs';
import { Blurhash } from './Blurhash';
import { localMediaUrl } from './local';
import './viewer.css';

type Attachment = mastodon.v1.MediaAttachment;

/** The box of an attachment from its `meta` (so nothing shifts when it loads). */
function aspect(a: Attachment): string {
  const small = a.meta?.small ?? a.meta?.original;
  const w = small?.width;
  const h = small?.height;
  return w && h ? `${w} / ${h}` : '16 / 9';
}

/**
 * A post's attachments: blurhash placeholders at their final size; sensitive media stays hidden
 * behind a button until revealed. `onOpen` opens the full-screen viewer at an index.
 */
export function MediaGrid(props: { media: readonly Attachment[]; sensitive: boolean; onOpen?: (index: number) => void; expand?: 'default' | 'show_all' | 'hide_all' }): JSX.Element {
  const expand = props.expand ?? 'default';
  // Mastodon's `reading:expand:media`: show_all never hides, hide_all always does.
  const hidden = expand === 'hide_all' || (props.sensitive && expand !== 'show_all');
  // The reader's own choice wins; until they make one, the preference decides (it may load later).
  const [choice, setShown] = useState<boolean | null>(null);
  const shown = choice ?? !hidden;
  const single = props.media.length === 1;
  return (
    <div class={`media-grid media-${Math.min(props.media.length, 4)}`}>
      {props.media.slice(0, 4).map((a, i) => (
        <div key={a.id} class="media-item" style={single ? { aspectRatio: aspect(a) } : undefined}>
          <Blurhash hash={a.blurhash} />
          {shown && <MediaPreview attachment={a} onOpen={() => props.onOpen?.(i)} />}
        </div>
      ))}
      {!shown ? (
        <button type="button" class="media-reveal" onClick={() => setShown(true)}>
          {props.sensitive ? 'Sensitive content: show media' : 'Media hidden: show media'}
        </button>
      ) : (
        hidden && (
          <button type="button" class="media-hide" onClick={() => setShown(false)}>
            Hide media
          </button>
        )
      )}
    </div>
  );
}

function MediaPreview(props: { attachment: Attachment; onOpen: () => void }): JSX.Element {
  const a = props.attachment;
  const autoplay = usePreference('autoplay');
  const label = a.description ? a.description : `${a.type === 'image' ? 'Image' : a.type === 'gifv' ? 'GIF' : a.type === 'video' ? 'Video' : 'Audio'} without a description`;
  if (a.type === 'gifv') {
    // GIFs move only with the autoplay preference (and never with reduced motion); otherwise they
    // show their first frame and play in the viewer.
    const play = autoplay && !matchMedia('(prefers-reduced-motion: reduce)').matches && document.documentElement.dataset.reduceMotion !== 'true';
    return (
      <button type="button" class="media-open" onClick={props.onOpen} aria-label={`Open GIF: ${label}`}>
        <video class="media-el" src={localMediaUrl(a.url)} poster={localMediaUrl(a.previewUrl)} title={a.description ?? undefined} autoplay={play} muted loop playsInline preload={play ? 'auto' : 'metadata'} aria-hidden="true" />
      </button>
    );
  }
  if (a.type === 'video')
    return (
      <button type="button" class="media-open" onClick={props.onOpen} aria-label={`Open video: ${label}`}>
        <img class="media-el" src={localMediaUrl(a.previewUrl)} alt="" loading="lazy" decoding="async" />
        <span class="media-play" aria-hidden="true">▶</span>
      </button>
    );
  if (a.type === 'audio') return <audio class="media-el" src={localMediaUrl(a.url)} aria-label={label} controls preload="none" />;
  return (
    <button type="button" class="media-open" onClick={props.onOpen} aria-label={`Open image: ${label}`}>
      <img class="media-el" src={localMediaUrl(a.previewUrl) ?? localMediaUrl(a.url)} alt={a.description ?? ''} title={a.description ?? undefined} loading="lazy" decoding="async" />
    </button>
  );
}
