import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInstance, type TestInstance, type TestUser } from '../helpers/instance.js';

const UPDATE = '/api/v1/accounts/update_credentials';

/**
 * Profile fields from a form are taken as Rails' `permit(fields_attributes: [:name, :value])`
 * takes them: an entry that cannot be a name/value pair is dropped and the rest of the update
 * applies, where it used to fail the whole update with a 422.
 */
describe('fields_attributes entries Rails would not permit', () => {
  let inst: TestInstance;
  let alice: TestUser;

  beforeAll(async () => {
    inst = await startInstance();
    alice = await inst.createUser('alice');
  });
  afterAll(async () => {
    await inst.close();
  });

  it('a multipart form with unparseable entries updates the rest', async () => {
    const form = new FormData();
    form.append('display_name', 'Form Alice');
    form.append('fields_attributes[0]', 'not an entry');
    form.append('fields_attributes[1][name]', 'Site');
    form.append('fields_attributes[1][value]', 'https://alice.example');
    form.append('fields_attributes[2][name][nested]', 'x');
    form.append('fields_attributes[2][value][nested]', 'y');
    form.append('fields_attributes[3][name]', 'First');
    form.append('fields_attributes[3][name]', 'Pronouns');
    form.append('fields_attributes[3][value]', 'she/her');
    const res = await alice.client.request('PATCH', UPDATE, { multipart: form });
    expect(res.status, res.text).toBe(200);
    expect(res.body.display_name).toBe('Form Alice');
    // The scalar entry and the nested one are dropped; a repeated key keeps its last value.
    expect(res.body.source.fields).toEqual([
      { name: 'Site', value: 'https://alice.example', verified_at: null },
      { name: 'Pronouns', value: 'she/her', verified_at: null },
    ]);
  });

  it('the same in a URL-encoded form and in JSON', async () => {
    const formRes = await alice.client.patch(UPDATE, undefined, {
      form: { 'fields_attributes[0]': 'junk', 'fields_attributes[1][name]': 'One', 'fields_attributes[1][value]': '1' },
    });
    expect(formRes.status, formRes.text).toBe(200);
    expect(formRes.body.source.fields.map((f: { name: string }) => f.name)).toEqual(['One']);
    const json = await alice.client.patch(UPDATE, { fields_attributes: ['junk', { name: 'Two', value: '2' }, { name: { a: 1 }, value: ['x'] }] });
    expect(json.status, json.text).toBe(200);
    expect(json.body.source.fields.map((f: { name: string }) => f.name)).toEqual(['Two']);
  });

  it('fields_attributes that is not a list of entries at all is still refused', async () => {
    const res = await alice.client.patch(UPDATE, { fields_attributes: 'abc' });
    expect(res.status).toBe(422);
  });
});
