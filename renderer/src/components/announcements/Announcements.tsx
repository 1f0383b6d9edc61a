import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { Content } from '../html/Content';
import { toast } from '../layout/toasts';
import { RelativeTime } from '../time/RelativeTime';
import './announcements.css';
import { ErrorRetry } from '../layout/ErrorRetry';

type Announcement = mastodon.v1.Announcement;
const KEY = ['announcements'];
/** The reactions offered beside those already given (any Unicode emoji or custom shortcode works). */
const OFFERED = ['👍', '❤️', '😂', '🎉', '😮', '😢'];

/** One reaction added (+1) or taken back (-1), as the instance will count it. */
function react(a: Announcement, name: string, add: boolean): Announcement {
  const found = a.reactions.find((r) => r.name === name);
  const reactions = found
    ? a.reactions.map((r) => (r.name === name ? { ...r, me: add, count: r.count + (add ? 1 : -1) } : r)).filter((r) => r.count > 0)
    : add
      ? [...a.reactions, { name, count: 1, me: true, url: '', staticUrl: '' }]
      : a.reactions;
  return { ...a, reactions };
}

/**
 * The instance's announcements at the top of the home timeline: content, when, the reactions
 * (a toggle per emoji; a picker to add one), and a Dismiss button. Each change shows at once and
 * is put back if the instance refuses it.
 */
export function Announcements(): JSX.Element | null {
  const api = useApi();
  const qc = useQueryClient();
  const query = useQuery({ queryKey: KEY, queryFn: async (): Promise<Announcement[]> => await api.rest.v1.announcements.list() });
  const [picker, setPicker] = useState<string | null>(null);

  const change = async (id: string, patch: (list: Announcement[]) => Announcement[], request: () => Promise<void>) => {
    const before = qc.getQueryData<Announcement[]>(KEY);
    qc.setQueryData<Announcement[]>(KEY, (list) => (list ? patch(list) : list));
    try {
      await request();
    } catch (error) {
      qc.setQueryData(KEY, before);
      toast(describeError(error), { retry: () => void change(id, patch, request) });
    }
  };
  const toggle = (a: Announcement, name: string, add: boolean) =>
    void change(
      a.id,
      (list) => list.map((x) => (x.id === a.id ? react(x, name, add) : x)),
      () => (add ? api.rest.v1.announcements.$select(a.id).reactions.$select(name).update() : api.rest.v1.announcements.$select(a.id).reactions.$select(name).remove()),
    );

  if (query.isError)
    return (
      <ErrorRetry error={query.error} onRetry={() => query.refetch()} what="Announcements" />
    );
  const list = query.data ?? [];
  if (list.length === 0) return null;
  return (
    <section class="announcements" aria-labelledby="announcements-title">
      <h2 id="announcements-title">Announcements</h2>
      {list.map((a) => (
        <article key={a.id} class="announcement" aria-label={`Announcement from ${new Date(a.publishedAt).toLocaleDateString()}`}>
          <p class="announcement-when">
            <RelativeTime iso={a.publishedAt} />
          </p>
          <Content html={a.content} emojis={a.emojis} links={{ mentions: a.mentions, tags: a.tags }} />
          <div class="reactions" role="group" aria-label="Reactions">
            {a.reactions.map((r) => (
              <button key={r.name} type="button" aria-pressed={r.me} aria-label={`${r.name} ${r.count}`} onClick={() => toggle(a, r.name, !r.me)}>
                {r.url ? <img class="custom-emoji" src={r.staticUrl || r.url} alt={`:${r.name}:`} /> : r.name} {r.count}
              </button>
            ))}
            <button type="button" aria-expanded={picker === a.id} onClick={() => setPicker(picker === a.id ? null : a.id)}>
              Add reaction
            </button>
            <button type="button" onClick={() => void change(a.id, (l) => l.filter((x) => x.id !== a.id), () => api.rest.v1.announcements.$select(a.id).dismiss())}>
              Dismiss
            </button>
          </div>
          {picker === a.id && (
            <ul class="reaction-picker" aria-label="Choose a reaction">
              {OFFERED.map((name) => (
                <li key={name}>
                  <button
                    type="button"
                    aria-label={`React with ${name}`}
                    onClick={() => {
                      setPicker(null);
                      if (!a.reactions.some((r) => r.name === name && r.me)) toggle(a, name, true);
                    }}
                  >
                    {name}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </article>
      ))}
    </section>
  );
}
