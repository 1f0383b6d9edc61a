/**
 * Errors with a public message and an HTTP status. Core and HTTP code throw these; the one error
 * middleware renders them as Mastodon's `{"error": "…"}` body. Anything else becomes a 500.
 */
export class ApiError extends Error {
  /** HTTP status code to answer with. */
  readonly status: number;
  /** Extra members merged into the JSON body (e.g. `error_description`, `existing_domain_block`). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(status: number, message: string, options?: { cause?: unknown; extra?: Record<string, unknown> }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'ApiError';
    this.status = status;
    this.extra = options?.extra;
  }
}

/** 404 as Mastodon words it: also used when the viewer may not see the record. */
export function notFound(cause?: unknown): ApiError {
  return new ApiError(404, 'Record not found', { cause });
}

/** 422 for a request that is well-formed but fails a validation rule. */
export function unprocessable(message: string, extra?: Record<string, unknown>): ApiError {
  return new ApiError(422, message.startsWith('Validation failed') ? message : `Validation failed: ${message}`, { extra });
}

/** 400 for a missing or malformed parameter. */
export function badRequest(message: string): ApiError {
  return new ApiError(400, message);
}

/** 403 for an action the viewer is not allowed to perform. */
export function forbidden(message = 'This action is not allowed'): ApiError {
  return new ApiError(403, message);
}

/** 401 for a missing, unknown, expired or revoked token. */
export function unauthorized(message = 'The access token is invalid'): ApiError {
  return new ApiError(401, message);
}
