import { useQuery, useQueryClient } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { ListState } from './state';
import '../../components/account/account.css';

type FeaturedTag = mastodon.v1.FeaturedTag;
const KEY = ['featured-tags', 'own'];

/** The hashtags featured on your profile: add one by name (or from the ones you use), remove one. */
export function FeaturedTags(): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const tags = useQuery({ queryKey: KEY, queryFn: async () => await api.rest.v1.featuredTags.list() });
  const suggestions = useQuery({ queryKey: ['featured-tags', 'suggestions'], queryFn: async () => await api.rest.v1.featuredTags.suggestions.list() });
  const add = async (raw: string): Promise<void> => {
    const tag = raw.trim().replace(/^#/, '');
    if (!tag) return;
    setBusy(true);
    try {
      const created = await api.rest.v1.featuredTags.create({ name: tag });
      qc.setQueryData<FeaturedTag[]>(KEY, (list) => [...(list ?? []).filter((t) => t.id !== created.id), created]);
      setName('');
      void qc.invalidateQueries({ queryKey: ['featured-tags', api.account.id] });
    } catch (error) {
      toast(describeError(error), { retry: () => void add(tag) });
    } finally {
      setBusy(false);
    }
  };
  const remove = async (tag: FeaturedTag): Promise<void> => {
    const before = qc.getQueryData<FeaturedTag[]>(KEY);
    qc.setQueryData<FeaturedTag[]>(KEY, before?.filter((t) => t.id !== tag.id));
    try {
      await api.rest.v1.featuredTags.$select(tag.id).remove();
      void qc.invalidateQueries({ queryKey: ['featured-tags', api.account.id] });
    } catch (error) {
      qc.setQueryData(KEY, before);
      toast(describeError(error), { retry: () => void remove(tag) });
    }
  };
  const featured = new Set((tags.data ?? []).map((t) => t.name.toLowerCase()));
  const unused = (suggestions.data ?? []).filter((t) => !featured.has(t.name.toLowerCase()));
  return (
    <section aria-labelledby="featured-title">
      <h2 id="featured-title">Featured hashtags</h2>
      <p class="muted">Shown on your profile, with the number of your posts using each.</p>
      <form
        class="feature-form"
        onSubmit={(e) => {
          e.preventDefault();
          void add(name);
        }}
      >
        <div class="field">
          <label for="feature-name">Hashtag to feature</label>
          <input id="feature-name" value={name} onInput={(e) => setName(e.currentTarget.value)} autoComplete="off" />
        </div>
        <button type="submit" class="primary" disabled={busy || !name.trim()}>
          Feature
        </button>
      </form>
      {unused.length > 0 && (
        <p>
          Hashtags you use:{' '}
          {unused.slice(0, 10).map((t) => (
            <button key={t.name} type="button" aria-label={`Feature #${t.name}`} onClick={() => void add(t.name)}>
              #{t.name}
            </button>
          ))}
        </p>
      )}
      <ListState isPending={tags.isPending} error={tags.error} empty={tags.data?.length === 0} emptyText="No featured hashtags yet." retry={() => void tags.refetch()} />
      <ul class="tag-list" aria-labelledby="featured-title">
        {tags.data?.map((t) => (
          <li key={t.id}>
            <a href={`/tags/${encodeURIComponent(t.name)}`}>#{t.name}</a>
            <span class="muted">{t.statusesCount} posts</span>
            <button type="button" aria-label={`Remove #${t.name}`} onClick={() => void remove(t)}>
              Remove
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
