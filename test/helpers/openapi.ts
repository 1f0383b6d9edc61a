import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { KNOWN_SCHEMA_MISTAKES } from './openapi-known-issues.js';

/**
 * Validates JSON responses against Mastodon's response schemas: the OpenAPI description reduced to
 * its structure in test/fixtures/mastodon-schemas.json (see test/fixtures/README.md for its source).
 * Paths are matched by template; a response whose status the description does not list, or lists
 * without a JSON schema, is not checked. Known mistakes of the description are patched first.
 */
const specPath = fileURLToPath(new URL('../fixtures/mastodon-schemas.json', import.meta.url));

interface Operation {
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
}
type Spec = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

let spec: Spec | null = null;
let ajv: Ajv2020 | null = null;
const compiled = new Map<string, ValidateFunction | null>();
let matchers: { template: string; regex: RegExp; specificity: number }[] = [];

function load(): { spec: Spec; ajv: Ajv2020 } {
  if (spec && ajv) return { spec, ajv };
  spec = JSON.parse(readFileSync(specPath, 'utf8')) as Spec;
  KNOWN_SCHEMA_MISTAKES.forEach((fix) => fix.apply(spec as Spec));
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  // The description's own format for language codes (ISO 639-1: two lower-case letters).
  ajv.addFormat('iso-639-1', /^[a-z]{2}$/);
  ajv.addSchema({ $id: 'mastodon', components: spec.components }, 'mastodon');
  matchers = Object.keys(spec.paths).map((template) => ({
    template,
    regex: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`),
    // Literal segments win over parameters: /accounts/verify_credentials before /accounts/{id}.
    specificity: template.split('/').filter((s) => s && !s.startsWith('{')).length,
  }));
  matchers.sort((a, b) => b.specificity - a.specificity);
  return { spec, ajv };
}

function rewriteRefs(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(rewriteRefs);
  if (node && typeof node === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `mastodon${v}` : rewriteRefs(v);
    }
    return out;
  }
  return node;
}

/** The path template of the description that a concrete path matches, if any. */
export function matchTemplate(path: string): string | undefined {
  load();
  return matchers.find((m) => m.regex.test(path))?.template;
}

/** Problems found validating `body` as the response to `method path` with `status`; empty when fine. */
export function validateResponse(method: string, path: string, status: number, body: unknown): string[] {
  const { spec: s, ajv: a } = load();
  const template = matchTemplate(path);
  if (!template) return [];
  const key = `${method.toLowerCase()} ${template} ${status}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    const schema = s.paths[template]?.[method.toLowerCase()]?.responses?.[String(status)]?.content?.['application/json']?.schema;
    validate = schema ? a.compile(rewriteRefs(schema) as object) : null;
    compiled.set(key, validate);
  }
  if (!validate || validate(body)) return [];
  return (validate.errors ?? []).slice(0, 10).map((e) => `${key}: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

/**
 * Problems found validating `body` as one of the description's entities (a component schema, e.g.
 * `AdminAccount`), for responses of methods the description does not list; empty when fine.
 */
export function validateEntity(component: string, body: unknown): string[] {
  const { ajv: a } = load();
  const key = `entity ${component}`;
  let validate = compiled.get(key);
  if (validate === undefined) {
    validate = a.compile({ $ref: `mastodon#/components/schemas/${component}` });
    compiled.set(key, validate);
  }
  if (!validate || validate(body)) return [];
  return (validate.errors ?? []).slice(0, 10).map((e) => `${key}: ${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}
