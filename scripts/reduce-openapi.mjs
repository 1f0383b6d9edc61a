#!/usr/bin/env node
// Reduces Mastodon's generated OpenAPI description to what the test rig validates against: the JSON
// response schemas of every path and method, and the component schemas they reference, with only
// their structure (types, properties, required, enums, formats, references, combinators). Prose
// (descriptions, summaries), examples, parameters, request bodies and links are dropped.
//
//   node scripts/reduce-openapi.mjs PATH/TO/openapi.json [OUT]
//
// OUT defaults to test/fixtures/mastodon-schemas.json. See test/fixtures/README.md for the source.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** Schema keywords that describe structure; everything else is dropped. */
const KEEP = new Set(['type', 'properties', 'required', 'enum', 'format', '$ref', 'items', 'oneOf', 'anyOf', 'allOf', 'additionalProperties', 'propertyNames', 'const', 'nullable', 'minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern']);

const refs = new Set();

/** The structural part of one schema object, recursively. */
function reduceSchema(node) {
  if (typeof node !== 'object' || node === null) return node;
  const out = {};
  for (const [key, value] of Object.entries(node)) {
    if (!KEEP.has(key)) continue;
    if (key === 'properties') {
      // Property names are data here, not keywords: keep every one, reduce its schema.
      out.properties = Object.fromEntries(Object.entries(value).map(([name, s]) => [name, reduceSchema(s)]));
    } else if (key === 'items' || key === 'additionalProperties' || key === 'propertyNames') {
      out[key] = typeof value === 'object' ? reduceSchema(value) : value;
    } else if (key === 'oneOf' || key === 'anyOf' || key === 'allOf') {
      out[key] = value.map(reduceSchema);
    } else {
      if (key === '$ref') refs.add(value);
      out[key] = value;
    }
  }
  return out;
}

/** Reduces a whole OpenAPI description; throws when a kept reference points nowhere. */
export function reduce(spec, source) {
  const paths = {};
  for (const [template, item] of Object.entries(spec.paths)) {
    paths[template] = {};
    for (const [method, op] of Object.entries(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const responses = {};
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const schema = response.content?.['application/json']?.schema;
        // Every listed status stays, so that "listed without a JSON schema" keeps its meaning.
        responses[status] = schema ? { content: { 'application/json': { schema: reduceSchema(schema) } } } : {};
      }
      paths[template][method] = { responses };
    }
  }
  const schemas = Object.fromEntries(Object.entries(spec.components.schemas).map(([name, s]) => [name, reduceSchema(s)]));
  for (const ref of refs) {
    const name = ref.replace(/^#\/components\/schemas\//, '');
    if (name === ref || !(name in schemas)) throw new Error(`unresolved reference ${ref}`);
  }
  return { source, openapi: spec.openapi, paths, components: { schemas } };
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1];
if (isMain) {
  const [input, output = fileURLToPath(new URL('../test/fixtures/mastodon-schemas.json', import.meta.url))] = process.argv.slice(2);
  if (!input) {
    console.error('usage: node scripts/reduce-openapi.mjs PATH/TO/openapi.json [OUT]');
    process.exit(2);
  }
  const spec = JSON.parse(readFileSync(input, 'utf8'));
  const source = 'abraham/mastodon-openapi, commit 89b11e7 (MIT licence), reduced by scripts/reduce-openapi.mjs';
  const reduced = reduce(spec, source);
  writeFileSync(output, `${JSON.stringify(reduced, null, 1)}\n`);
  const count = Object.values(reduced.paths).reduce((n, p) => n + Object.keys(p).length, 0);
  console.log(`${output}: ${Object.keys(reduced.paths).length} paths, ${count} operations, ${Object.keys(reduced.components.schemas).length} schemas`);
}
