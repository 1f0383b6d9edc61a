import { decode } from 'blurhash';
import type { JSX } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** The blurhash placeholder of an attachment, painted on a small canvas stretched to the box. */
export function Blurhash(props: { hash: string | null | undefined; class?: string }): JSX.Element | null {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    const el = canvas.current;
    if (!el || !props.hash) return;
    try {
      const pixels = decode(props.hash, 32, 32);
      const ctx = el.getContext('2d');
      if (!ctx) return;
      const image = ctx.createImageData(32, 32);
      image.data.set(pixels);
      ctx.putImageData(image, 0, 0);
    } catch {
      // A malformed hash from a remote server: no placeholder, nothing else breaks.
    }
  }, [props.hash]);
  if (!props.hash) return null;
  return <canvas ref={canvas} class={props.class ?? 'blurhash'} width={32} height={32} aria-hidden="true" />;
}
