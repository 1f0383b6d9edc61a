import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { Timeline } from '../../components/timeline/Timeline';

/** The tag of the route, `#` and percent-encoding removed (a malformed escape is kept as typed). */
function decodeTag(raw: string): string {
  let tag = raw;
  try {
    tag = decodeURIComponent(raw);
  } catch {
    // "%E0%A4%A" and the like: not valid escapes, so the text is the tag.
  }
  return tag.replace(/^#/, '');
}

/**
 * A hashtag's timeline, live over the `hashtag` stream, with a Follow/Unfollow button in its
 * header (followed hashtags fill the home timeline); following shows at once and is put back if
 * the instance refuses it.
 */
export function Hashtag(props: { tag?: string }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const tag = decodeTag(props.tag ?? '');
  const key = ['tag', tag.toLowerCase()];
  const info = useQuery({ queryKey: key, queryFn: () => api.rest.v1.tags.$select(tag).fetch(), retry: false });
  const following = info.data?.following ?? false;
  const toggle = async () => {
    const before = info.data;
    if (!before) return;
    qc.setQueryData<mastodon.v1.Tag>(key, { ...before, following: !following });
    try {
      const answer = following ? await api.rest.v1.tags.$select(tag).unfollow() : await api.rest.v1.tags.$select(tag).follow();
      qc.setQueryData(key, answer);
    } catch (error) {
      qc.setQueryData(key, before);
      toast(describeError(error), { retry: () => void toggle() });
    }
  };
  return (
    <section aria-labelledby="tag-title">
      <div class="feed-header">
        <h1 id="tag-title">#{tag}</h1>
        {info.data && (
          <button type="button" aria-pressed={following} onClick={() => void toggle()}>
            {following ? `Unfollow #${tag}` : `Follow #${tag}`}
          </button>
        )}
      </div>
      <Timeline
        key={tag}
        label={`#${tag}`}
        queryKey={['timeline', 'tag', tag.toLowerCase()]}
        fetchPage={(a, maxId) => a.rest.v1.timelines.tag.$select(tag).list({ limit: 20, maxId })}
        stream={(a) => a.streaming().hashtag.subscribe({ tag })}
        context="public"
        empty={`No posts with #${tag} yet.`}
      />
    </section>
  );
}
