import type { AuthMode, Method } from './routes.js';

// Route matching with Express's rules, without walking every route's regular expression (see
// RouteIndex).

/** A registered route with what dispatch needs. */
export interface Entry<H> {
  /** Registration order: when several routes match, the earliest wins (as Express walks them). */
  index: number;
  method: Method;
  auth: AuthMode;
  scopes: readonly string[];
  handler: H;
  /** Lower-case path segments; null where the segment is a `:param`. */
  segments: (string | null)[];
  /** Parameter name per segment (null for literal segments). */
  params: (string | null)[];
}

/** Methods an automatic OPTIONS answer lists for a route (Express adds HEAD to GET routes). */
const ALLOW: Record<Method, string[]> = { get: ['GET', 'HEAD'], post: ['POST'], put: ['PUT'], patch: ['PATCH'], delete: ['DELETE'] };

/**
 * Splits a route path of Express syntax (`/api/v1/statuses/:id`) into segments. Only whole-segment
 * `:name` parameters are supported; anything else path-to-regexp would treat specially is refused
 * so that a route can never silently match differently than it reads.
 */
export function compilePath(path: string): { segments: (string | null)[]; params: (string | null)[] } {
  // Express ignores trailing slashes of a route path (router's `loosen`).
  const trimmed = path.length > 1 ? path.replace(/\/+$/, '') : path;
  if (!trimmed.startsWith('/') || /[()[\]{}*?+!\\]/.test(trimmed)) throw new Error(`unsupported route path syntax: ${path}`);
  const segments: (string | null)[] = [];
  const params: (string | null)[] = [];
  for (const part of trimmed.split('/').slice(1)) {
    if (part.startsWith(':')) {
      const name = part.slice(1);
      if (!/^[$_\p{ID_Start}][$\u200c\u200d\p{ID_Continue}]*$/u.test(name)) throw new Error(`unsupported route parameter in ${path}`);
      segments.push(null);
      params.push(name);
    } else {
      if (part.includes(':')) throw new Error(`unsupported route parameter in ${path}`);
      segments.push(part.toLowerCase());
      params.push(null);
    }
  }
  return { segments, params };
}

/** Decodes a path parameter as Express does: a malformed escape is a 400. */
function decodeParam(value: string): string {
  if (!value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch (err) {
    if (err instanceof URIError) {
      Object.assign(err, { message: `Failed to decode param '${value}'`, status: 400, statusCode: 400 });
    }
    throw err;
  }
}

/**
 * The route lookup: literal paths in a Map per method, parameterized ones compared segment by
 * segment (grouped by segment count), with Express's matching rules: case-insensitive, one
 * optional trailing slash, `:param` matches one non-empty segment, HEAD served by GET routes,
 * and the earliest registered route wins.
 */
export class RouteIndex<H> {
  private readonly literal = new Map<string, Map<string, Entry<H>>>();
  private readonly dynamic = new Map<string, Entry<H>[][]>();
  readonly all: Entry<H>[] = [];

  add(entry: Entry<H>): void {
    this.all.push(entry);
    const method = entry.method.toUpperCase();
    if (entry.params.every((p) => p === null)) {
      let byPath = this.literal.get(method);
      if (!byPath) this.literal.set(method, (byPath = new Map()));
      const key = `/${entry.segments.join('/')}`;
      // The first registration of a path wins; later ones are unreachable, as under Express.
      if (!byPath.has(key)) byPath.set(key, entry);
      return;
    }
    let byCount = this.dynamic.get(method);
    if (!byCount) this.dynamic.set(method, (byCount = []));
    const n = entry.segments.length;
    while (byCount.length <= n) byCount.push([]);
    byCount[n]?.push(entry);
  }

  /** The route answering `method` (upper case) at `path` (the raw pathname), with its parameters. */
  find(method: string, path: string): { entry: Entry<H>; params: Record<string, string> } | null {
    const lookup = method === 'HEAD' ? 'GET' : method;
    let key = path.toLowerCase();
    if (key.length > 1 && key.endsWith('/')) key = key.slice(0, -1);
    const literal = this.literal.get(lookup)?.get(key);
    const byCount = this.dynamic.get(lookup);
    if (byCount) {
      const parts = key.split('/');
      const candidates = byCount[parts.length - 1];
      if (candidates) {
        const limit = literal ? literal.index : Number.POSITIVE_INFINITY;
        for (const entry of candidates) {
          if (entry.index > limit) break;
          if (!matches(entry, parts)) continue;
          // Parameters keep the case they were sent in.
          const original = path.split('/');
          const params: Record<string, string> = Object.create(null) as Record<string, string>;
          for (let i = 0; i < entry.params.length; i++) {
            const name = entry.params[i];
            if (name) params[name] = decodeParam(original[i + 1] ?? '');
          }
          return { entry, params };
        }
      }
    }
    return literal ? { entry: literal, params: Object.create(null) as Record<string, string> } : null;
  }

  /**
   * Express decodes the parameters of every route whose path matches, whatever its method, so a
   * malformed escape answers 400 even where no route of the request's method exists.
   */
  checkEscapes(path: string): void {
    if (!path.includes('%')) return;
    let key = path.toLowerCase();
    if (key.length > 1 && key.endsWith('/')) key = key.slice(0, -1);
    const parts = key.split('/');
    const original = path.split('/');
    for (const entry of this.all) {
      if (entry.segments.length !== parts.length - 1 || !matches(entry, parts)) continue;
      entry.params.forEach((name, i) => {
        if (name) decodeParam(original[i + 1] ?? '');
      });
    }
  }

  /** The methods any route accepts at `path`, for an automatic OPTIONS answer. */
  allowed(path: string): string[] {
    let key = path.toLowerCase();
    if (key.length > 1 && key.endsWith('/')) key = key.slice(0, -1);
    const parts = key.split('/');
    const methods = new Set<string>();
    for (const entry of this.all) {
      if (entry.segments.length === parts.length - 1 && matches(entry, parts)) for (const m of ALLOW[entry.method]) methods.add(m);
    }
    return [...methods].sort();
  }
}

/** Whether a route's segments match a split lower-case path (`parts[0]` is the empty root). */
function matches<H>(entry: Entry<H>, parts: readonly string[]): boolean {
  const segments = entry.segments;
  for (let i = 0; i < segments.length; i++) {
    const want = segments[i];
    const got = parts[i + 1];
    if (want === null ? !got : want !== got) return false;
  }
  return true;
}
