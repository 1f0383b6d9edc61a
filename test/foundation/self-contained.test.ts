import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { KNOWN_SCHEMA_MISTAKES } from '../helpers/openapi-known-issues.js';
import { matchTemplate, validateResponse } from '../helpers/openapi.js';
import { useInstance } from '../helpers/fixtures.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Every file below `dir`, skipping installed and generated folders. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist') continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push(path);
  }
  return out;
}

describe('the suite stands on its own', () => {
  it('reads nothing from the reference folder beside the checkout', () => {
    // Spelled in pieces so that this file does not match itself.
    const parent = ['..', 'shared'].join('/');
    const absolute = ['', 'work', 'shared'].join('/');
    const offenders: string[] = [];
    for (const top of ['test', 'bench', 'scripts', '.ci']) {
      for (const file of filesUnder(join(root, top))) {
        const text = readFileSync(file, 'utf8');
        if (text.includes(parent) || text.includes(absolute)) offenders.push(relative(root, file));
      }
    }
    expect(offenders).toEqual([]);
  });

  it('keeps the captured requests and documents the federation tests replay', () => {
    for (const server of ['snac', 'gotosocial']) {
      const index = JSON.parse(readFileSync(join(root, 'test/fixtures/activitypub', server, 'index.json'), 'utf8')) as { file: string }[];
      expect(index.length).toBeGreaterThan(30);
      for (const { file } of index) {
        const captured = JSON.parse(readFileSync(join(root, 'test/fixtures/activitypub', server, file), 'utf8')) as { captured_at: string; raw_body: string | null };
        expect(Number.isNaN(Date.parse(captured.captured_at)), file).toBe(false);
      }
    }
  });
});

describe('response schemas', () => {
  const env = useInstance(['alice']);

  it('accepts a real answer and catches one that breaks the schema', async () => {
    const { users } = env();
    const res = await users.alice.client.get('/api/v1/accounts/verify_credentials');
    expect(res.status).toBe(200);
    expect(validateResponse('GET', '/api/v1/accounts/verify_credentials', 200, res.body)).toEqual([]);

    // A missing required property, a wrong type and a date that is not one: each is reported.
    const { acct: _acct, ...withoutAcct } = res.body as Record<string, unknown>;
    expect(validateResponse('GET', '/api/v1/accounts/verify_credentials', 200, withoutAcct).join('\n')).toMatch(/acct/);
    const wrongType = { ...res.body, followers_count: 'many' };
    expect(validateResponse('GET', '/api/v1/accounts/verify_credentials', 200, wrongType).join('\n')).toMatch(/followers_count/);
    const badDate = { ...res.body, created_at: 'yesterday' };
    expect(validateResponse('GET', '/api/v1/accounts/verify_credentials', 200, badDate).join('\n')).toMatch(/created_at/);
    // Through a reference inside an array: a status list whose account lacks its id.
    const brokenList = [{ id: '1' }];
    expect(validateResponse('GET', '/api/v1/timelines/home', 200, brokenList)).not.toEqual([]);
  });

  it('matches literal path segments before parameters', () => {
    expect(matchTemplate('/api/v1/accounts/verify_credentials')).toBe('/api/v1/accounts/verify_credentials');
    expect(matchTemplate('/api/v1/accounts/123')).toBe('/api/v1/accounts/{id}');
  });

  it('has a target for every known mistake it patches', () => {
    const path = join(root, 'test/fixtures/mastodon-schemas.json');
    for (const fix of KNOWN_SCHEMA_MISTAKES) {
      const spec = JSON.parse(readFileSync(path, 'utf8'));
      const before = JSON.stringify(spec);
      fix.apply(spec);
      expect(JSON.stringify(spec), fix.why).not.toBe(before);
    }
  });

  it('is reduced by the script to structure only', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hearth-reduce-'));
    try {
      const full = {
        openapi: '3.1.0',
        info: { title: 'sample', description: 'prose' },
        paths: {
          '/api/v1/things/{id}': {
            get: {
              summary: 'One thing',
              parameters: [{ name: 'id', in: 'path' }],
              responses: {
                '200': { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' }, examples: { a: {} } } } },
                '404': { description: 'missing' },
              },
            },
          },
        },
        components: {
          schemas: {
            Thing: {
              type: 'object',
              description: 'A thing',
              required: ['id'],
              properties: {
                id: { type: 'string', description: 'its id', example: '1' },
                // A property that happens to be called "description" stays.
                description: { type: ['string', 'null'], externalDocs: { url: 'x' } },
                kind: { type: 'string', enum: ['a', 'b'] },
                at: { type: 'string', format: 'date-time', deprecated: true },
              },
            },
          },
        },
      };
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(full));
      execFileSync(process.execPath, [join(root, 'scripts/reduce-openapi.mjs'), join(dir, 'openapi.json'), join(dir, 'out.json')]);
      const reduced = JSON.parse(readFileSync(join(dir, 'out.json'), 'utf8'));
      expect(reduced.paths).toEqual({
        '/api/v1/things/{id}': { get: { responses: { '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } } }, '404': {} } } },
      });
      expect(reduced.components.schemas.Thing).toEqual({
        type: 'object',
        required: ['id'],
        properties: {
          id: { type: 'string' },
          description: { type: ['string', 'null'] },
          kind: { type: 'string', enum: ['a', 'b'] },
          at: { type: 'string', format: 'date-time' },
        },
      });
      expect(reduced.source).toMatch(/abraham\/mastodon-openapi, commit 89b11e7/);

      // A reference to a schema the description lacks is an error, not a silent hole.
      full.paths['/api/v1/things/{id}'].get.responses['200'].content['application/json'].schema.$ref = '#/components/schemas/Missing';
      writeFileSync(join(dir, 'openapi.json'), JSON.stringify(full));
      expect(() =>
        execFileSync(process.execPath, [join(root, 'scripts/reduce-openapi.mjs'), join(dir, 'openapi.json'), join(dir, 'out.json')], { stdio: 'pipe' }),
      ).toThrow(/unresolved reference/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
