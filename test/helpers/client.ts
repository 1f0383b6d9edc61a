import { expect } from 'vitest';
import { validateResponse } from './openapi.js';

/** A response as tests see it. */
export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  /** Parsed JSON body (undefined when the body is not JSON). */
  body: T;
  text: string;
}

export interface RequestOptions {
  /** JSON body. */
  json?: unknown;
  /** URL-encoded form body (values may be arrays for `name[]`). */
  form?: Record<string, string | string[]>;
  /** Multipart body. */
  multipart?: FormData;
  /** Raw body with its content type. */
  raw?: { body: string | Uint8Array; type: string };
  headers?: Record<string, string>;
  /** Overrides the client's token; `null` sends none. */
  token?: string | null;
  /** Skips OpenAPI validation (for deliberately odd requests whose answer the description does not cover). */
  skipSchema?: boolean;
}

/**
 * A small HTTP client for tests: real requests on loopback, JSON parsed, and every JSON response
 * validated against Mastodon's OpenAPI description (a mismatch fails the test).
 */
export class TestClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string | null = null,
  ) {}

  /** A client for the same instance with another token. */
  withToken(token: string | null): TestClient {
    return new TestClient(this.baseUrl, token);
  }

  async request<T = any>(method: string, path: string, options: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(options.headers ?? {}) };
    const token = options.token === undefined ? this.token : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: RequestInit['body'];
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form) {
      const params = new URLSearchParams();
      for (const [k, v] of Object.entries(options.form)) {
        if (Array.isArray(v)) v.forEach((x) => params.append(k, x));
        else params.append(k, v);
      }
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = params.toString();
    } else if (options.multipart) {
      body = options.multipart;
    } else if (options.raw) {
      headers['content-type'] = options.raw.type;
      body = options.raw.body as RequestInit['body'];
    }
    const res = await fetch(new URL(path, this.baseUrl), { method, headers, body, redirect: 'manual' });
    const text = await res.text();
    let parsed: unknown = undefined;
    if ((res.headers.get('content-type') ?? '').includes('json') && text.length > 0) parsed = JSON.parse(text);
    if (parsed !== undefined && !options.skipSchema) {
      const url = new URL(path, this.baseUrl);
      const problems = validateResponse(method, url.pathname, res.status, parsed);
      expect(problems, `OpenAPI validation of ${method} ${url.pathname} → ${res.status}`).toEqual([]);
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  }

  get<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('GET', path, options);
  }
  post<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('POST', path, { ...(json === undefined ? {} : { json }), ...options });
  }
  put<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('PUT', path, { ...(json === undefined ? {} : { json }), ...options });
  }
  patch<T = any>(path: string, json?: unknown, options?: RequestOptions) {
    return this.request<T>('PATCH', path, { ...(json === undefined ? {} : { json }), ...options });
  }
  delete<T = any>(path: string, options?: RequestOptions) {
    return this.request<T>('DELETE', path, options);
  }
}
