import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { Dialog } from '../dialog/Dialog';
import { localMediaUrl } from './local';
import './viewer.css';

type Attachment = mastodon.v1.MediaAttachment;

/**
 * The full-screen viewer of a post's attachments: one at a time, at full size, with its alt text
 * written out below it; Previous/Next buttons and the arrow keys move between them; Escape closes.
 */
export function MediaViewer(props: { media: readonly Attachment[]; start: number; onClose: () => void }): JSX.Element {
  const [index, setIndex] = useState(Math.min(Math.max(props.start, 0), props.media.length - 1));
  const count = props.media.length;
  const a = props.media[index];
  const go = (delta: number) => setIndex((i) => (i + delta + count) % count);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'ArrowRight') go(1);
      else if (e.key === 'ArrowLeft') go(-1);
      else return;
      e.preventDefault();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, [count]);
  return (
    <Dialog title={count > 1 ? `Media ${index + 1} of ${count}` : 'Media'} onClose={props.onClose} class="dialog media-viewer">
      {a && (
        <figure class="viewer-figure">
          {a.type === 'image' || a.type === 'unknown' ? (
            <img src={localMediaUrl(a.url) ?? localMediaUrl(a.previewUrl)} alt={a.description ?? ''} />
          ) : a.type === 'audio' ? (
            <audio src={localMediaUrl(a.url)} controls aria-label={a.description ?? 'Audio'} />
          ) : (
            <video src={localMediaUrl(a.url)} poster={localMediaUrl(a.previewUrl)} controls autoplay={a.type === 'gifv'} loop={a.type === 'gifv'} muted={a.type === 'gifv'} playsInline aria-label={a.description ?? 'Video'} />
          )}
          <figcaption>{a.description ? <>Alt text: {a.description}</> : 'No alt text.'}</figcaption>
        </figure>
      )}
      {count > 1 && (
        <div class="viewer-nav">
          <button type="button" onClick={() => go(-1)}>
            Previous
          </button>
          <button type="button" onClick={() => go(1)}>
            Next
          </button>
        </div>
      )}
    </Dialog>
  );
}
