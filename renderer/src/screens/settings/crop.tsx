import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Dialog } from '../../components/dialog/Dialog';

/** The selection inside the image, in the image's own pixels. */
interface Area {
  x: number;
  y: number;
  width: number;
}

const VIEW = 480; // the canvas's drawing width in CSS pixels (it scales down at zoom)

/**
 * The crop step before an avatar (1:1) or header (3:1) is uploaded: the image with the chosen area
 * outlined; drag the area or move it with the arrow keys, size it with the slider, then "Crop"
 * gives the area as a PNG Blob (drawn with a canvas) to `onCropped`.
 */
export function CropDialog(props: { file: File; aspect: number; title: string; onCropped: (blob: Blob) => void; onClose: () => void }): JSX.Element {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [image, setImage] = useState<ImageBitmap | null>(null);
  const [failed, setFailed] = useState(false);
  const [area, setArea] = useState<Area>({ x: 0, y: 0, width: 1 });
  const drag = useRef<{ px: number; py: number; area: Area } | null>(null);

  useEffect(() => {
    let alive = true;
    createImageBitmap(props.file).then(
      (bitmap) => {
        if (!alive) return;
        const width = Math.min(bitmap.width, bitmap.height * props.aspect);
        setArea({ x: (bitmap.width - width) / 2, y: (bitmap.height - width / props.aspect) / 2, width });
        setImage(bitmap);
      },
      () => alive && setFailed(true),
    );
    return () => void (alive = false);
  }, [props.file]);

  const scale = image ? VIEW / image.width : 1;
  const clamp = (a: Area): Area => {
    if (!image) return a;
    const width = Math.max(16, Math.min(a.width, image.width, image.height * props.aspect));
    const height = width / props.aspect;
    return { width, x: Math.max(0, Math.min(a.x, image.width - width)), y: Math.max(0, Math.min(a.y, image.height - height)) };
  };

  useEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx || !image) return;
    c.width = VIEW;
    c.height = Math.round(image.height * scale);
    ctx.drawImage(image, 0, 0, c.width, c.height);
    ctx.fillStyle = 'rgba(0, 0, 0, 0.5)';
    const [x, y, w, h] = [area.x * scale, area.y * scale, area.width * scale, (area.width / props.aspect) * scale];
    ctx.fillRect(0, 0, c.width, y);
    ctx.fillRect(0, y + h, c.width, c.height - y - h);
    ctx.fillRect(0, y, x, h);
    ctx.fillRect(x + w, y, c.width - x - w, h);
    ctx.strokeStyle = '#ffffff';
    ctx.lineWidth = 2;
    ctx.strokeRect(x, y, w, h);
  }, [image, area]);

  const onKey = (e: KeyboardEvent): void => {
    const step = (e.shiftKey ? 40 : 8) / scale;
    const moves: Record<string, [number, number]> = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] };
    const move = moves[e.key];
    if (!move) return;
    e.preventDefault();
    setArea((a) => clamp({ ...a, x: a.x + move[0], y: a.y + move[1] }));
  };

  const onPointer = (e: PointerEvent, phase: 'down' | 'move' | 'up'): void => {
    const c = canvas.current;
    if (!c) return;
    const ratio = c.width / c.getBoundingClientRect().width / scale;
    if (phase === 'down') {
      c.setPointerCapture(e.pointerId);
      drag.current = { px: e.clientX, py: e.clientY, area };
    } else if (phase === 'move' && drag.current) {
      const d = drag.current;
      setArea(clamp({ ...d.area, x: d.area.x + (e.clientX - d.px) * ratio, y: d.area.y + (e.clientY - d.py) * ratio }));
    } else drag.current = null;
  };

  const crop = (): void => {
    if (!image) return;
    const out = document.createElement('canvas');
    out.width = Math.round(Math.min(area.width, props.aspect === 1 ? 400 : 1500));
    out.height = Math.round(out.width / props.aspect);
    out.getContext('2d')?.drawImage(image, area.x, area.y, area.width, area.width / props.aspect, 0, 0, out.width, out.height);
    out.toBlob((blob) => blob && props.onCropped(blob), 'image/png');
  };

  const maxWidth = image ? Math.min(image.width, image.height * props.aspect) : 1;
  return (
    <Dialog title={props.title} onClose={props.onClose}>
      {failed && <p role="alert">This file is not an image that can be shown.</p>}
      {!image && !failed && <p role="status">Opening the image…</p>}
      {image && (
        <>
          <p class="hint" id="crop-help">
            Drag the outlined area or move it with the arrow keys; choose its size with the slider.
          </p>
          <canvas
            ref={canvas}
            class="crop-canvas"
            tabIndex={0}
            role="img"
            aria-label="Crop area"
            aria-describedby="crop-help"
            onKeyDown={onKey}
            onPointerDown={(e) => onPointer(e, 'down')}
            onPointerMove={(e) => onPointer(e, 'move')}
            onPointerUp={(e) => onPointer(e, 'up')}
          />
          <label for="crop-size">Crop size</label>
          <input
            id="crop-size"
            type="range"
            min={Math.min(16, maxWidth)}
            max={maxWidth}
            value={area.width}
            onInput={(e) => {
              const width = Number(e.currentTarget.value);
              setArea((a) => clamp({ x: a.x + (a.width - width) / 2, y: a.y + (a.width - width) / props.aspect / 2, width }));
            }}
          />
        </>
      )}
      <div class="actions">
        <button type="button" class="primary" disabled={!image} onClick={crop}>
          Crop
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </Dialog>
  );
}
