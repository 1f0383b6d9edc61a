import type { JSX } from 'preact';
import { useMemo } from 'preact/hooks';
import { encode } from 'uqr';

/**
 * A QR code of `text`, drawn as SVG (dark modules on white in both themes, since scanners need
 * the contrast), named for screen readers by `label`; the text itself is shown beside it by the
 * caller for those who cannot scan.
 */
export function QrCode(props: { text: string; label: string }): JSX.Element {
  const { size, path } = useMemo(() => {
    const qr = encode(props.text, { ecc: 'M', border: 2 });
    let d = '';
    qr.data.forEach((row, y) => {
      row.forEach((dark, x) => {
        if (dark) d += `M${x} ${y}h1v1h-1z`;
      });
    });
    return { size: qr.size, path: d };
  }, [props.text]);
  return (
    <svg class="qr-code" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={props.label} shape-rendering="crispEdges" xmlns="http://www.w3.org/2000/svg">
      <rect width={size} height={size} fill="#ffffff" />
      <path d={path} fill="#000000" />
    </svg>
  );
}
