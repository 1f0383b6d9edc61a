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

const uploadDir = join(tmpdir(), 'hearth-uploads');

/**
 * Parses multipart/form-data: fields are collected in order and decoded with the same bracket
 * rules as form bodies (`source[privacy]`, `fields_attributes[0][name]`, `ids[]`); files go to
 * temporary files, deleted once the response has finished.
 */
function multipart(maxFieldBytes: number): RequestHandler {
  return (req, res, next) => {
    if (!req.is('multipart/form-data')) {
      next();
      return;
    }
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: MAX_UPLOAD_BYTES, fieldSize: maxFieldBytes, files: 4, fields: 1000 } });
    } catch (err) {
      next(new ApiError(400, 'Error occurred while parsing request parameters', { cause: err }));
      return;
    }
    const pairs: [string, string][] = [];
    const files: Record<string, UploadedFile> = {};
    const writes: Promise<void>[] = [];
    let failure: ApiError | null = null;
    const cleanup = () => {
      for (const f of Object.values(files)) rmSync(f.path, { force: true });
    };
    res.on('close', cleanup);
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) failure ??= new ApiError(413, 'Request entity too large');
      pairs.push([name, value]);
    });
    bb.on('file', (name, stream, info) => {
      mkdirSync(uploadDir, { recursive: true });
      const path = join(uploadDir, randomUUID());
      const file: UploadedFile = { field: name, path, size: 0, claimedType: info.mimeType, filename: info.filename ?? '' };
      files[name] = file;
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length;
      });
      stream.on('limit', () => {
        failure ??= new ApiError(413, 'File is too large');
      });
      writes.push(pipeline(stream, createWriteStream(path)));
    });
    bb.on('error', (err) => {
      failure ??= new ApiError(400, 'Error occurred while parsing request parameters', { cause: err });
      next(failure);
    });
    bb.on('close', () => {
      Promise.all(writes).then(
        () => {
          if (failure) {
            next(failure);
            return;
          }
          const encoded = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
          req.body = qs.parse(encoded, { arrayLimit: 1000, depth: 5, parameterLimit: 1000 });
          req.rawForm = encoded;
          req.files = files;
          next();
        },
        (err: unknown) => next(new ApiError(400, 'Error occurred while parsing request parameters', { cause: err })),
      );
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
export function bodyParsers(maxBodyBytes: number): RequestHandler[] {
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
    multipart(maxBodyBytes),
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
 * The request's parameters as Rails merges them for Mastodon: query string, then body (body wins),
 * then path parameters. Handlers validate this object with a schema.
 */
export function requestInput(req: Request): Record<string, unknown> {
  const body = req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? (req.body as Record<string, unknown>) : {};
  return { ...(req.query as Record<string, unknown>), ...body, ...req.params };
}
