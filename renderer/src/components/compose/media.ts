import type { Api } from '../../instance/client';
import { ApiFailure } from '../../instance/client';

/** One attachment in the composer: being uploaded, being processed, ready, or failed. */
export interface Upload {
  /** Local key (stable across the upload's life). */
  key: string;
  name: string;
  state: 'uploading' | 'processing' | 'ready' | 'failed';
  /** 0..1 while uploading. */
  progress: number;
  /** The attachment id once the instance has it. */
  id: string | null;
  type: string;
  previewUrl: string | null;
  /** Width / height of the preview (from the attachment's `meta`), so the preview takes its size at once. */
  aspect: number | null;
  description: string;
  /** Focal point, -1..1 each (Mastodon's convention: y grows upwards). */
  focusX: number;
  focusY: number;
  error: string | null;
  /** Attached to the post already (an edit): changed through the status's media attributes. */
  attached: boolean;
  /** Alt text or focus changed since the instance last saw them. */
  dirty: boolean;
}

/** The attachment fields the instance answers with (snake_case: these requests bypass masto). */
interface RawAttachment {
  id: string;
  type: string;
  url: string | null;
  preview_url: string | null;
  description: string | null;
  meta?: { small?: { aspect?: number }; original?: { aspect?: number } } | null;
}

/** The aspect ratio an attachment's `meta` gives, if any. */
export function aspectOf(meta: unknown): number | null {
  const m = meta as RawAttachment['meta'];
  const aspect = m?.small?.aspect ?? m?.original?.aspect;
  return typeof aspect === 'number' && Number.isFinite(aspect) && aspect > 0 ? aspect : null;
}

function readError(xhr: XMLHttpRequest): ApiFailure {
  let message = xhr.statusText || 'Upload failed';
  try {
    const body = JSON.parse(xhr.responseText) as { error?: unknown };
    if (typeof body.error === 'string') message = body.error;
  } catch {
    // Not JSON: keep the status text.
  }
  return new ApiFailure(message, xhr.status);
}

/**
 * Uploads a file with `POST /api/v2/media` over XMLHttpRequest (fetch cannot report upload
 * progress), then, when the instance answers 202 (still processing), asks again every second
 * until the attachment has its URL.
 */
export async function uploadFile(api: Api, file: File, onProgress: (fraction: number) => void, onProcessing: () => void): Promise<RawAttachment> {
  const first = await new Promise<{ status: number; body: RawAttachment }>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/v2/media');
    xhr.setRequestHeader('Authorization', `Bearer ${api.account.accessToken}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status === 200 || xhr.status === 202) resolve({ status: xhr.status, body: JSON.parse(xhr.responseText) as RawAttachment });
      else reject(readError(xhr));
    };
    xhr.onerror = () => reject(new TypeError('network error'));
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
  onProgress(1);
  let attachment = first.body;
  if (first.status === 202 || attachment.url === null) onProcessing();
  for (let i = 0; attachment.url === null && i < 600; i++) {
    await new Promise((r) => setTimeout(r, 1000));
    attachment = await api.fetchJson<RawAttachment>(`/api/v1/media/${encodeURIComponent(attachment.id)}`);
  }
  return attachment;
}

/** The composer's form of an attachment already on a post (edit, delete and redraft). */
export function uploadFromAttachment(m: { id: string; type: string; previewUrl?: string | null; url?: string | null; description?: string | null; meta?: unknown }, attached: boolean): Upload {
  const focus = (m.meta as { focus?: { x?: number; y?: number } } | null | undefined)?.focus;
  return {
    key: `m-${m.id}`,
    name: m.description || m.type,
    state: 'ready',
    progress: 1,
    id: m.id,
    type: m.type,
    previewUrl: m.previewUrl ?? m.url ?? null,
    aspect: aspectOf(m.meta),
    description: m.description ?? '',
    focusX: focus?.x ?? 0,
    focusY: focus?.y ?? 0,
    error: null,
    attached,
    dirty: false,
  };
}

/** The focus parameter Mastodon takes: "x,y" with two decimals. */
export function focusParam(u: Upload): string {
  return `${u.focusX.toFixed(2)},${u.focusY.toFixed(2)}`;
}
