import type { Response } from 'express';
import { isFrozenCacheValue } from '../core/fresh-cache.js';

// How handlers' results become HTTP answers: `respond`, and the commit-group guard `holdResponse`.

/** The result of a handler that answers with a status other than 200 or extra headers. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/**
 * A handler result that is JSON text already (a cached rendering): written as is, with the same
 * headers as any JSON answer.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

const JSON_TYPE = 'application/json; charset=utf-8';

type ResponseMethod = 'end' | 'write' | 'flushHeaders';
const RESPONSE_METHODS: readonly ResponseMethod[] = ['end', 'write', 'flushHeaders'];

/**
 * Makes a handler that answers by itself (a redirect, a page) close the commit group before the
 * first byte leaves; returns the function that puts the response's methods back.
 */
export function holdResponse(res: Response, close: () => void): () => void {
  const target = res as unknown as Record<ResponseMethod, (...args: unknown[]) => unknown>;
  const saved = RESPONSE_METHODS.map((name) => ({ name, own: Object.hasOwn(res, name), fn: target[name] }));
  for (const { name, fn } of saved) {
    target[name] = function (this: unknown, ...args: unknown[]) {
      close();
      return fn.apply(this, args);
    };
  }
  return () => {
    for (const { name, own, fn } of saved) {
      if (own) target[name] = fn;
      else Reflect.deleteProperty(res, name);
    }
  };
}

const frozenJson = new WeakMap<object, string>();

/** Writes a handler's result: nothing if it answered itself, a Reply, or the JSON body. */
export function respond(res: Response, result: unknown): void {
  if (res.headersSent) return;
  if (result instanceof Reply) {
    for (const [k, v] of Object.entries(result.headers)) res.setHeader(k, v);
    if (result.body === undefined) {
      res.status(result.status);
      res.end();
    } else {
      sendJson(res, result.status, result.body);
    }
    return;
  }
  if (result instanceof JsonText) {
    sendJsonText(res, 200, result.text);
    return;
  }
  // A cached, deep-frozen entity (verify_credentials…) is serialized once.
  if (isFrozenCacheValue(result)) {
    const value = result as object;
    let text = frozenJson.get(value);
    if (text === undefined) {
      text = JSON.stringify(value);
      frozenJson.set(value, text);
    }
    sendJsonText(res, 200, text);
    return;
  }
  sendJson(res, 200, result === undefined ? {} : result);
}

/**
 * Writes a JSON body with exactly the headers Express's `res.json` writes here (ETags are off):
 * `Content-Type: application/json; charset=utf-8` and the length. Where `res.json` would do
 * more (a type set by the handler gets a charset added, 204/304 drop the body, validators may
 * turn the answer into a 304), it is still used.
 */
function sendJson(res: Response, status: number, body: unknown): void {
  const text = plainJsonAnswer(res, status) ? JSON.stringify(body) : undefined;
  if (text === undefined) {
    res.status(status).json(body);
    return;
  }
  sendJsonText(res, status, text);
}

/** Whether `res.json` would write nothing but the body, its type and its length. */
function plainJsonAnswer(res: Response, status: number): boolean {
  return status !== 204 && status !== 304 && !res.hasHeader('content-type') && !res.hasHeader('etag') && !res.hasHeader('last-modified');
}

/** Writes JSON text as `res.json` would have written the value it encodes. */
function sendJsonText(res: Response, status: number, text: string): void {
  if (!plainJsonAnswer(res, status)) {
    res.status(status).json(JSON.parse(text) as unknown);
    return;
  }
  const bytes = Buffer.from(text, 'utf8');
  res.statusCode = status;
  res.setHeader('Content-Type', JSON_TYPE);
  res.setHeader('Content-Length', bytes.length);
  res.end(bytes);
}

/** The answer Express gives to OPTIONS on a path that routes accept with other methods. */
export function sendAllowed(res: Response, methods: readonly string[]): void {
  const text = methods.join(', ');
  res.setHeader('Allow', text);
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.setHeader('Content-Type', 'text/plain');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.end(text);
}
