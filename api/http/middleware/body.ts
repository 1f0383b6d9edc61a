import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import busboy from 'busboy';
import express from 'express';
import type { Request, RequestHandler } from 'express';
import qs from 'qs';
import { ApiError } from '../../util/errors.js';

/** A file received in a multipart body, spooled to a temporary file that is removed after the response. */
export interface UploadedFile {
  field: string;
  path: string;
  size: number;
  /** What the client claimed; media code detects the real type from the bytes. */
  claimedType: string;
  filename: string;
}

declare module 'express-serve-static-core' {
  interface Request {
    files?: Record<string, UploadedFile>;
    /** A form or multipart body's fields as URL-encoded text, in order (for Rails' `name[][key]` arrays). */
    rawForm?: string;
  }
}

/** Largest multipart file accepted before the media layer applies its per-type limits. */
export const MAX_UPLOAD_BYTES = 100 * 1024 * 1024;

/** Where uploads are spooled when the caller names no folder. */
const DEFAULT_UPLOAD_DIR = join(tmpdir(), 'hearth-uploads');

/** What the multipart parser is told about a request before it reads the body. */
export type Admission =
  /** Read it; `keepFiles` false reads its files without writing them (no route would take them). */
  | { ok: true; keepFiles: boolean }
  /** Refuse it with this error before reading anything (its route needs a token it lacks…). */
  | { ok: false; error: unknown };

/** Options of the body parsers. */
export interface BodyOptions {
  /**
   * The folder uploads are spooled to while their request is handled. Emptied when the parsers
   * are made (at start-up, before anything listens): a file left there by a crash is nobody's.
   */
  uploadDir?: string;
  /** Asked before a multipart body is read, so that no upload is written for a refused request. */
  admit?: (req: Request) => Admission;
}

const parseError = (cause: unknown) => new ApiError(400, 'Error occurred while parsing request parameters', { cause });

/**
 * Parses multipart/form-data: fields are collected in order and decoded with the same bracket
 * rules as form bodies (`source[privacy]`, `fields_attributes[0][name]`, `ids[]`); files go to
 * temporary files, deleted once the response has finished.
 *
 * A request that `admit` refuses (a route that needs a token, called without a valid one) gets
 * its error before any of its body is read, so none of its upload is written anywhere. A body
 * that fails (truncated, malformed, cut off by the client) gets one error, once every file write
 * has settled and the files are gone: `next` is called exactly once, and nothing is left behind.
 */
function multipart(maxFieldBytes: number, options: BodyOptions): RequestHandler {
  const uploadDir = options.uploadDir ?? DEFAULT_UPLOAD_DIR;
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    const admission = options.admit?.(req) ?? { ok: true, keepFiles: true };
    if (!admission.ok) {
      next(admission.error);
      return;
    }
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: MAX_UPLOAD_BYTES, fieldSize: maxFieldBytes, files: 4, fields: 1000 } });
    } catch (err) {
      next(parseError(err));
      return;
    }
    const pairs: [string, string][] = [];
    const files: Record<string, UploadedFile> = {};
    // Every file written, also one a later part of the same name replaced in `files`.
    const spooled: string[] = [];
    const writes: Promise<void>[] = [];
    const open = new Set<NodeJS.ReadableStream & { destroy(error?: Error): void }>();
    let failure: ApiError | null = null;
    let finished = false;

    // Only once every write has settled: a file whose stream was still opening would otherwise
    // appear after its removal, and stay.
    const removeFiles = async () => {
      await Promise.allSettled(writes);
      for (const path of spooled) rmSync(path, { force: true });
    };
    res.on('close', () => void removeFiles());

    /** The one way out of the parser. */
    const finish = (error: ApiError | null) => {
      if (finished) return;
      finished = true;
      req.unpipe(bb);
      if (error) {
        // Streams still open (the client stopped sending) end now, so their writes settle.
        for (const stream of open) stream.destroy();
        // The rest of the body is read and dropped, so that the answer can go out on this connection.
        req.resume();
        void removeFiles().then(() => next(error));
        return;
      }
      void Promise.allSettled(writes).then((results) => {
        const failed = results.find((r) => r.status === 'rejected');
        if (failed) {
          void removeFiles().then(() => next(parseError(failed.reason)));
          return;
        }
        const encoded = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
        req.body = qs.parse(encoded, { arrayLimit: 1000, depth: 5, parameterLimit: 1000 });
        req.rawForm = encoded;
        req.files = files;
        next();
      });
    };

    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) failure ??= new ApiError(413, 'Request entity too large');
      pairs.push([name, value]);
    });
    bb.on('file', (name, stream, info) => {
      if (finished || !admission.keepFiles) {
        stream.resume();
        return;
      }
      mkdirSync(uploadDir, { recursive: true });
      const path = join(uploadDir, randomUUID());
      const file: UploadedFile = { field: name, path, size: 0, claimedType: info.mimeType, filename: info.filename ?? '' };
      files[name] = file;
      spooled.push(path);
      open.add(stream);
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length;
      });
      stream.on('limit', () => {
        failure ??= new ApiError(413, 'File is too large');
      });
      const write = pipeline(stream, createWriteStream(path)).finally(() => open.delete(stream));
      // Its failure is reported through `finish`; a rejection nobody awaited yet is not an error.
      write.catch(() => undefined);
      writes.push(write);
    });
    bb.on('error', (err) => finish(failure ?? parseError(err)));
    bb.on('close', () => finish(failure));
    // The client went away before the body was complete: busboy would wait for it forever.
    req.on('close', () => {
      if (!req.complete) finish(failure ?? parseError(new Error('request aborted')));
    });
    req.pipe(bb);
  };
}

/** Whether a request carries a body, by the same test body-parser applies (type-is `hasBody`). */
function hasBody(req: Request): boolean {
  return req.headers['transfer-encoding'] !== undefined || !Number.isNaN(Number(req.headers['content-length'] ?? Number.NaN));
}

/**
 * Body parsers for every input form Mastodon clients use: JSON, URL-encoded forms (bracketed
 * names decoded as nested objects and arrays) and multipart. Oversized bodies answer 413,
 * malformed JSON 400. One middleware: a request without a body (every GET) passes straight
 * through, as each parser would let it; others go through the parsers in turn.
 */
export function bodyParsers(maxBodyBytes: number, options: BodyOptions = {}): RequestHandler[] {
  // Nothing is uploading yet: whatever a previous run left in its own spool folder goes.
  if (options.uploadDir) rmSync(options.uploadDir, { recursive: true, force: true });
  const parsers: RequestHandler[] = [
    express.json({ limit: maxBodyBytes, type: ['application/json', 'application/*+json'], strict: false }),
    express.urlencoded({
      extended: true,
      limit: maxBodyBytes,
      parameterLimit: 1000,
      verify: (req, _res, buf) => {
        (req as express.Request).rawForm = buf.toString('utf8');
      },
    }),
    multipart(maxBodyBytes, options),
  ];
  const parseBody: RequestHandler = (req, res, next) => {
    if (!hasBody(req)) {
      // What the parsers leave on a request without a body.
      if (!Reflect.has(req, 'body')) req.body = undefined;
      next();
      return;
    }
    let i = 0;
    const step = (err?: unknown): void => {
      const parser = parsers[i++];
      if (err || !parser) {
        next(err);
        return;
      }
      void parser(req, res, step);
    };
    step();
  };
  return [parseBody];
}

/**
 * The name (Rails style, `a[b][0]`) of a parameter whose name or value holds a NUL character, or
 * null. Walked with a stack of its own: a JSON body may nest deeper than the call stack goes.
 */
export function parameterWithNul(value: unknown): string | null {
  const stack: [unknown, string][] = [[value, '']];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const [current, name] = item;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return name || '(body)';
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    for (const [key, child] of Object.entries(current)) {
      const path = name ? `${name}[${key}]` : key;
      if (key.includes('\u0000')) return path;
      stack.push([child, path]);
    }
  }
  return null;
}

/**
 * The request's parameters as Rails merges them for Mastodon: query string, then body (body wins),
 * then path parameters. Handlers validate this object with a schema.
 *
 * A NUL character anywhere in them (query, form, JSON or multipart fields, path) is refused here,
 * once for every route: no text with one is ever stored, as Mastodon cannot store one (PostgreSQL
 * refuses it; Mastodon fails the request) and peers would choke on it. Refused as Rails refuses
 * parameters it cannot take (invalid encoding): 400, naming the parameter.
 */
export function requestInput(req: Request): Record<string, unknown> {
  const body = req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  const query = req.query as Record<string, unknown>;
  // In the URL a NUL can only arrive as %00, so most requests skip the walk over query and path.
  const nul = parameterWithNul(req.body) ?? (req.url.includes('%00') ? parameterWithNul({ ...query, ...req.params }) : null);
  if (nul !== null) throw new ApiError(400, `Invalid request parameters: ${nul} contains a null character`);
  return { ...query, ...body, ...req.params };
}
