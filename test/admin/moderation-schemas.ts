import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import { KNOWN_SCHEMA_MISTAKES } from '../helpers/openapi-known-issues.js';

/**
 * Checks admin entities against Mastodon's response schemas. The description the test client
 * validates with has no admin methods (test/fixtures/README.md), so the client cannot match these
 * answers to a path; their entity schemas (AdminReport, AdminDomainBlock, …) are there, and these
 * tests check each answer against its entity by name.
 */
type Spec = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

let ajv: Ajv2020 | null = null;
const compiled = new Map<string, ValidateFunction>();

function validator(name: string): ValidateFunction {
  if (!ajv) {
    const spec = JSON.parse(readFileSync(new URL('../fixtures/mastodon-schemas.json', import.meta.url), 'utf8')) as Spec;
    KNOWN_SCHEMA_MISTAKES.forEach((fix) => fix.apply(spec));
    ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    ajv.addFormat('iso-639-1', /^[a-z]{2}$/);
    ajv.addSchema({ $id: 'mastodon', components: spec.components }, 'mastodon');
  }
  let v = compiled.get(name);
  if (!v) {
    v = ajv.compile({ $ref: `mastodon#/components/schemas/${name}` });
    compiled.set(name, v);
  }
  return v;
}

/** Fails the test unless `body` (one entity, or a list of them) matches the named entity schema. */
export function expectEntity(name: string, body: unknown): void {
  const v = validator(name);
  for (const item of Array.isArray(body) ? body : [body]) {
    const ok = v(item);
    expect(ok ? [] : (v.errors ?? []).slice(0, 10).map((e) => `${name}${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`)).toEqual([]);
  }
}
