import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { QueryState, Section } from '../../components/layout/section';
import { useAdminChange, useAdminFetch, useAdminList } from './data';

interface DomainBlock {
  id: string;
  domain: string;
  severity: 'silence' | 'suspend' | 'noop';
  reject_media: boolean;
  reject_reports: boolean;
  public_comment: string | null;
}
interface DomainAllow {
  id: string;
  domain: string;
}

const SEVERITIES = [
  ['silence', 'Limit'],
  ['suspend', 'Suspend'],
  ['noop', 'None (only the options below)'],
] as const;

/** Staff > Domains: server-wide domain blocks (with severity and options) and domain allows. */
export function Domains(): JSX.Element {
  return (
    <>
      <Blocks />
      <Allows />
    </>
  );
}

function Blocks(): JSX.Element {
  const call = useAdminFetch();
  const query = useAdminList<DomainBlock>('domain_blocks', '/api/v1/admin/domain_blocks?limit=200');
  const [domain, setDomain] = useState('');
  const [severity, setSeverity] = useState<string>('silence');
  const [rejectMedia, setRejectMedia] = useState(false);
  const [rejectReports, setRejectReports] = useState(false);
  const [comment, setComment] = useState('');
  const add = useAdminChange<DomainBlock, void>(
    'domain_blocks',
    () => call('/api/v1/admin/domain_blocks', 'POST', { domain: domain.trim(), severity, reject_media: rejectMedia, reject_reports: rejectReports, public_comment: comment }),
    () => `Blocking ${domain}`,
  );
  const remove = useAdminChange<DomainBlock, DomainBlock>(
    'domain_blocks',
    (b) => call(`/api/v1/admin/domain_blocks/${b.id}`, 'DELETE'),
    (b) => `Lifting the block of ${b.domain}`,
    (list, b) => list.filter((x) => x.id !== b.id),
  );
  return (
    <Section title="Domain blocks">
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (domain.trim()) add.mutate(undefined, { onSuccess: () => setDomain('') });
        }}
      >
        <label for="block-domain">Domain to block</label>
        <input id="block-domain" type="text" required value={domain} onInput={(e) => setDomain(e.currentTarget.value)} />
        <label for="block-severity">Severity</label>
        <select id="block-severity" value={severity} onChange={(e) => setSeverity(e.currentTarget.value)}>
          {SEVERITIES.map(([v, l]) => (
            <option key={v} value={v}>
              {l}
            </option>
          ))}
        </select>
        <label class="check">
          <input type="checkbox" checked={rejectMedia} onChange={(e) => setRejectMedia(e.currentTarget.checked)} />
          Reject media files
        </label>
        <label class="check">
          <input type="checkbox" checked={rejectReports} onChange={(e) => setRejectReports(e.currentTarget.checked)} />
          Reject reports
        </label>
        <label for="block-comment">Public comment</label>
        <input id="block-comment" type="text" value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit" class="primary" disabled={add.isPending}>
            Block domain
          </button>
        </div>
      </form>
      <QueryState query={query} label="domain blocks">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Blocked domains">
              {query.data.map((b) => (
                <li key={b.id}>
                  <span class="grow">
                    <strong>{b.domain}</strong> <span class="hint">{SEVERITIES.find(([v]) => v === b.severity)?.[1] ?? b.severity}</span>
                  </span>
                  <button type="button" aria-label={`Lift the block of ${b.domain}`} onClick={() => remove.mutate(b)}>
                    Lift
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No domains are blocked.</p>
          )
        }
      </QueryState>
    </Section>
  );
}

function Allows(): JSX.Element {
  const call = useAdminFetch();
  const query = useAdminList<DomainAllow>('domain_allows', '/api/v1/admin/domain_allows?limit=200');
  const [domain, setDomain] = useState('');
  const add = useAdminChange<DomainAllow, string>('domain_allows', (d) => call('/api/v1/admin/domain_allows', 'POST', { domain: d }), (d) => `Allowing ${d}`);
  const remove = useAdminChange<DomainAllow, DomainAllow>(
    'domain_allows',
    (a) => call(`/api/v1/admin/domain_allows/${a.id}`, 'DELETE'),
    (a) => `Removing ${a.domain}`,
    (list, a) => list.filter((x) => x.id !== a.id),
  );
  return (
    <Section title="Domain allows">
      <p class="hint">Used when the instance federates only with allowed domains.</p>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          if (domain.trim()) add.mutate(domain.trim(), { onSuccess: () => setDomain('') });
        }}
      >
        <label for="allow-domain">Domain to allow</label>
        <input id="allow-domain" type="text" required value={domain} onInput={(e) => setDomain(e.currentTarget.value)} />
        <div class="actions">
          <button type="submit">Allow domain</button>
        </div>
      </form>
      <QueryState query={query} label="allowed domains">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Allowed domains">
              {query.data.map((a) => (
                <li key={a.id}>
                  <span class="grow">{a.domain}</span>
                  <button type="button" aria-label={`Remove ${a.domain} from the allowed domains`} onClick={() => remove.mutate(a)}>
                    Remove
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No domains are allowed explicitly.</p>
          )
        }
      </QueryState>
    </Section>
  );
}
