import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { Blurhash } from './Blurhash';

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
export function MediaGrid(props: { media: readonly Attachment[]; sensitive: boolean; onOpen?: (index: number) => void }): JSX.Element {
  const [shown, setShown] = useState(!props.sensitive);
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
          Sensitive content: show media
        </button>
      ) : (
        props.sensitive && (
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
  const label = a.description ? a.description : `${a.type === 'image' ? 'Image' : a.type === 'gifv' ? 'GIF' : a.type === 'video' ? 'Video' : 'Audio'} without a description`;
  if (a.type === 'gifv') {
    return <video class="media-el" src={a.url ?? undefined} aria-label={label} title={a.description ?? undefined} autoplay muted loop playsInline onClick={props.onOpen} />;
  }
  if (a.type === 'video') return <video class="media-el" src={a.url ?? undefined} poster={a.previewUrl ?? undefined} aria-label={label} controls preload="none" />;
  if (a.type === 'audio') return <audio class="media-el" src={a.url ?? undefined} aria-label={label} controls preload="none" />;
  return (
    <button type="button" class="media-open" onClick={props.onOpen} aria-label={`Open image: ${label}`}>
      <img class="media-el" src={a.previewUrl ?? a.url ?? undefined} alt={a.description ?? ''} title={a.description ?? undefined} loading="lazy" decoding="async" />
    </button>
  );
}
