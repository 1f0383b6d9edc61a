import type { JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiFailure, useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { Section } from '../../components/layout/section';

const FILES = [
  ['following_accounts', 'People you follow'],
  ['lists', 'Lists'],
  ['blocked_accounts', 'Blocked accounts'],
  ['muted_accounts', 'Muted accounts'],
  ['blocked_domains', 'Blocked domains'],
  ['bookmarks', 'Bookmarks'],
] as const;

/** Settings > Export: each of Mastodon's CSV files, fetched with the token and offered as a download. */
export function ExportSettings(): JSX.Element {
  return (
    <Section title="Export your data">
      <p class="hint">These files are in Mastodon’s formats: another Hearth or a Mastodon server can import them.</p>
      <ul class="rows" aria-label="Files to export">
        {FILES.map(([file, label]) => (
          <ExportRow key={file} file={file} label={label} />
        ))}
      </ul>
    </Section>
  );
}

function ExportRow(props: { file: string; label: string }): JSX.Element {
  const api = useApi();
  const [state, setState] = useState<{ url?: string; error?: string; busy?: boolean }>({});
  useEffect(() => () => void (state.url && URL.revokeObjectURL(state.url)), [state.url]);
  const prepare = async (): Promise<void> => {
    setState({ busy: true });
    try {
      const res = await fetch(`/api/hearth/exports/${props.file}.csv`, { headers: { Authorization: `Bearer ${api.account.accessToken}` } });
      if (!res.ok) throw new ApiFailure(res.statusText, res.status);
      setState({ url: URL.createObjectURL(await res.blob()) });
    } catch (error) {
      setState({ error: describeError(error) });
    }
  };
  const name = `${props.file}.csv`;
  return (
    <li>
      <span class="grow">
        <strong>{props.label}</strong> <span class="hint">{name}</span>
      </span>
      {state.url ? (
        <a class="button primary" href={state.url} download={name}>
          Download {name}
        </a>
      ) : (
        <button type="button" disabled={state.busy} onClick={() => void prepare()} aria-label={`Prepare ${name}`}>
          {state.busy ? 'Preparing…' : 'Prepare'}
        </button>
      )}
      {state.error && (
        <span role="alert">
          {state.error}{' '}
          <button type="button" onClick={() => void prepare()}>
            Try again
          </button>
        </span>
      )}
    </li>
  );
}
