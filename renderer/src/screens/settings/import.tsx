import { useMutation, useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { RelativeTime } from '../../components/time/RelativeTime';
import { QueryState, Section } from '../../components/layout/section';

/** An import as `/api/hearth/imports` gives it. */
interface ImportJob {
  id: string;
  type: string;
  mode: 'merge' | 'overwrite';
  state: 'scheduled' | 'in_progress' | 'finished' | 'cancelled';
  total: number;
  processed: number;
  imported: number;
  failed: number;
  created_at: string;
  finished_at: string | null;
}
interface Failure {
  line: number;
  value: string;
  reason: string;
  message: string;
}

const TYPES = [
  ['following', 'People you follow (following_accounts.csv)'],
  ['lists', 'Lists (lists.csv)'],
  ['blocks', 'Blocked accounts (blocked_accounts.csv)'],
  ['mutes', 'Muted accounts (muted_accounts.csv)'],
  ['domain_blocks', 'Blocked domains (blocked_domains.csv)'],
  ['bookmarks', 'Bookmarks (bookmarks.csv)'],
] as const;

const done = (job: ImportJob | undefined): boolean => !!job && (job.state === 'finished' || job.state === 'cancelled');

/**
 * Settings > Import: choose the kind of file, merge or overwrite, and the file; then its progress
 * (polled) and the rows that could not be done. Earlier imports are listed below.
 */
export function ImportSettings(): JSX.Element {
  const api = useApi();
  const [type, setType] = useState<string>('following');
  const [mode, setMode] = useState<'merge' | 'overwrite'>('merge');
  const [file, setFile] = useState<File | null>(null);
  const [current, setCurrent] = useState<string | null>(null);
  const history = useQuery({ queryKey: ['settings', 'imports'], queryFn: () => api.fetchJson<ImportJob[]>('/api/hearth/imports') });
  const start = useMutation({
    mutationFn: () => {
      const body = new FormData();
      body.append('type', type);
      body.append('mode', mode);
      if (file) body.append('data', file, file.name);
      return api.fetchJson<ImportJob>('/api/hearth/imports', { method: 'POST', body });
    },
    onSuccess: (job) => {
      setCurrent(job.id);
      void history.refetch();
    },
  });
  return (
    <>
      <Section title="Import data">
        <form
          onSubmit={(e) => {
            e.preventDefault();
            if (file) start.mutate();
          }}
        >
          <label for="import-type">Kind of file</label>
          <select id="import-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            {TYPES.map(([v, l]) => (
              <option key={v} value={v}>
                {l}
              </option>
            ))}
          </select>
          <fieldset>
            <legend>What to do with what you already have</legend>
            <label class="check">
              <input type="radio" name="import-mode" checked={mode === 'merge'} onChange={() => setMode('merge')} />
              Merge: keep it and add the file’s
            </label>
            <label class="check">
              <input type="radio" name="import-mode" checked={mode === 'overwrite'} onChange={() => setMode('overwrite')} />
              Overwrite: replace it with the file’s
            </label>
          </fieldset>
          <label for="import-file">CSV file</label>
          <input id="import-file" type="file" accept=".csv,text/csv" required onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
          {start.isError && <p role="alert">{describeError(start.error)}</p>}
          <div class="actions">
            <button type="submit" class="primary" disabled={start.isPending || !file}>
              Start import
            </button>
          </div>
        </form>
      </Section>
      {current && <Progress id={current} onDone={() => void history.refetch()} />}
      <Section title="Earlier imports">
        <QueryState query={history} label="imports">
          {() =>
            history.data?.length ? (
              <ul class="rows" aria-label="Imports">
                {history.data.map((job) => (
                  <li key={job.id}>
                    <span class="grow">
                      {TYPES.find(([v]) => v === job.type)?.[1] ?? job.type} ({job.mode}) · <RelativeTime iso={job.created_at} /> · {job.processed} of {job.total} done, {job.failed} failed
                    </span>
                    <button type="button" aria-label={`Show import ${job.id}`} onClick={() => setCurrent(job.id)}>
                      Show
                    </button>
                  </li>
                ))}
              </ul>
            ) : (
              <p>No imports yet.</p>
            )
          }
        </QueryState>
      </Section>
    </>
  );
}

function Progress(props: { id: string; onDone: () => void }): JSX.Element {
  const api = useApi();
  const job = useQuery({
    queryKey: ['settings', 'imports', props.id],
    queryFn: async () => {
      const j = await api.fetchJson<ImportJob>(`/api/hearth/imports/${props.id}`);
      if (done(j)) props.onDone();
      return j;
    },
    refetchInterval: (q) => (done(q.state.data) ? false : 1000),
  });
  const failures = useQuery({
    queryKey: ['settings', 'imports', props.id, 'failures'],
    queryFn: () => api.fetchJson<Failure[]>(`/api/hearth/imports/${props.id}/failures?limit=1000`),
    enabled: done(job.data),
  });
  const cancel = useMutation({ mutationFn: () => api.fetchJson(`/api/hearth/imports/${props.id}`, { method: 'DELETE' }), onSettled: () => void job.refetch() });
  return (
    <Section title="Import progress">
      <QueryState query={job} label="the import">
        {() => {
          const j = job.data;
          if (!j) return null;
          const percent = j.total ? Math.round((j.processed / j.total) * 100) : 100;
          return (
            <>
              <progress class="progress" aria-label="Import progress" max={100} value={percent} />
              <p role="status">
                {j.state === 'cancelled' ? 'Cancelled' : done(j) ? 'Finished' : 'Importing'}: {j.processed} of {j.total} rows ({percent}%), {j.imported} imported, {j.failed} failed.
              </p>
              {!done(j) && (
                <button type="button" onClick={() => cancel.mutate()}>
                  Cancel import
                </button>
              )}
              {done(j) && (
                <QueryState query={failures} label="rows that failed">
                  {() =>
                    failures.data?.length ? (
                      <table>
                        <caption>Rows that could not be imported</caption>
                        <thead>
                          <tr>
                            <th scope="col">Line</th>
                            <th scope="col">Row</th>
                            <th scope="col">Why</th>
                          </tr>
                        </thead>
                        <tbody>
                          {failures.data.map((f) => (
                            <tr key={f.line}>
                              <td>{f.line}</td>
                              <td>{f.value}</td>
                              <td>{f.message || f.reason}</td>
                            </tr>
                          ))}
                        </tbody>
                      </table>
                    ) : (
                      <p>Every row was imported.</p>
                    )
                  }
                </QueryState>
              )}
            </>
          );
        }}
      </QueryState>
    </Section>
  );
}
