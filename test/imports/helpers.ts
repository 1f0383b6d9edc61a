import { expect } from 'vitest';
import type { TestClient, TestResponse } from '../helpers/client.js';
import { eventually } from '../federation/helpers.js';
import type { ImportEntity, ImportFailure } from '../../api/core/imports/manage.js';

export type { ImportEntity, ImportFailure };

/** Uploads a CSV file as a person's browser does (multipart, the file as `data`). */
export function upload(client: TestClient, type: string, csv: string, mode?: 'merge' | 'overwrite', filename = `${type}.csv`): Promise<TestResponse<ImportEntity>> {
  const form = new FormData();
  form.append('type', type);
  if (mode) form.append('mode', mode);
  form.append('data', new Blob([csv], { type: 'text/csv' }), filename);
  return client.post<ImportEntity>('/api/hearth/imports', undefined, { multipart: form });
}

/** Uploads, expects 202, and waits until the job has finished the import. */
export async function importAndWait(client: TestClient, type: string, csv: string, mode?: 'merge' | 'overwrite', timeoutMs = 45_000): Promise<ImportEntity> {
  const res = await upload(client, type, csv, mode);
  expect(res.status, res.text).toBe(202);
  return waitFinished(client, res.body.id, timeoutMs);
}

/** Polls an import until it is finished. */
export function waitFinished(client: TestClient, id: string, timeoutMs = 45_000): Promise<ImportEntity> {
  return eventually(async () => {
    const res = await client.get<ImportEntity>(`/api/hearth/imports/${id}`);
    return res.body.state === 'finished' ? res.body : null;
  }, timeoutMs);
}

/** Every failure of an import, in file order. */
export async function failuresOf(client: TestClient, id: string): Promise<ImportFailure[]> {
  const res = await client.get<ImportFailure[]>(`/api/hearth/imports/${id}/failures?limit=1000`);
  expect(res.status).toBe(200);
  return res.body;
}

/** Downloads one export file; checks it is served as a CSV attachment. */
export async function download(client: TestClient, file: string): Promise<string> {
  const res = await client.get(`/api/hearth/exports/${file}.csv`);
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/csv/);
  expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${file}.csv"`);
  return res.text;
}
