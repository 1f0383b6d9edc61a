import type { Rebase } from '../util/uris.js';

/**
 * Streaming messages. An event is sent as `{"stream":[…],"event":"…","payload":"…"}` over
 * WebSocket, where the payload is a JSON text carried as a JSON string, and as `event:`/`data:`
 * lines over server-sent events. Payloads are built once per event (or per viewer where they
 * differ) from text pieces whose escaped forms are kept, so that a per-viewer payload only escapes
 * its own small part.
 */

/** A payload text with its escaped form (the JSON string literal that carries it). */
export class Payload {
  private escapedText: string | undefined;

  private constructor(
    readonly text: string,
    escaped?: string,
  ) {
    this.escapedText = escaped;
  }

  /** A payload from its text. */
  static of(text: string): Payload {
    return new Payload(text);
  }

  /** The JSON string literal of the text, computed once. */
  get escaped(): string {
    this.escapedText ??= JSON.stringify(this.text);
    return this.escapedText;
  }

  /**
   * The payload of this text followed by `more` (texts, or payloads whose escaped form is kept).
   * JSON string escaping works character by character, so the escaped form is the escaped forms
   * joined: only plain strings in `more` are escaped anew.
   */
  concat(...more: (string | Payload)[]): Payload {
    let text = this.text;
    let escaped = this.escaped.slice(0, -1);
    for (const part of more) {
      if (typeof part === 'string') {
        text += part;
        escaped += JSON.stringify(part).slice(1, -1);
      } else {
        text += part.text;
        escaped += part.escaped.slice(1, -1);
      }
    }
    return new Payload(text, `${escaped}"`);
  }
}

/**
 * One event ready to send: its name and payload (none for `filters_changed`). Frames are cached
 * per stream name (and URL base, see Hub), so subscribers of the same stream get the same bytes.
 */
export class Outgoing {
  private readonly wsFrames = new Map<string, Buffer>();
  private sseFrames: Map<string, Buffer> | undefined;

  constructor(
    readonly event: string,
    readonly payload: Payload | null,
  ) {}

  /**
   * The WebSocket text frame for a stream name (`streamJson` is the JSON of the name array), with
   * its URLs moved by `rebase` when the connection has one.
   */
  wsFrame(streamJson: string, rebase: Rebase | null = null): Buffer {
    const key = rebase ? `${rebase.to} ${streamJson}` : streamJson;
    let frame = this.wsFrames.get(key);
    if (!frame) {
      // `filters_changed` carries no payload key at all over WebSocket, as Mastodon sends it.
      const payload = this.payload ? `,"payload":${this.payload.escaped}` : '';
      const text = `{"stream":${streamJson},"event":${JSON.stringify(this.event)}${payload}}`;
      frame = Buffer.from(rebase ? rebase.apply(text) : text);
      this.wsFrames.set(key, frame);
    }
    return frame;
  }

  /**
   * The server-sent event: `event:` and `data:` lines (`data: undefined` without a payload, as
   * Mastodon writes it), with its URLs moved by `rebase` when the connection has one.
   */
  sse(rebase: Rebase | null = null): Buffer {
    this.sseFrames ??= new Map();
    const key = rebase?.to ?? '';
    let frame = this.sseFrames.get(key);
    if (!frame) {
      const text = `event: ${this.event}\ndata: ${this.payload ? this.payload.text : 'undefined'}\n\n`;
      frame = Buffer.from(rebase ? rebase.apply(text) : text);
      this.sseFrames.set(key, frame);
    }
    return frame;
  }
}
