import { useMutation, useQuery, useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { QueryState, Section } from '../../components/layout/section';

interface Emoji {
  shortcode: string;
  url: string;
  static_url: string;
  category: string | null;
}

const KEY = ['settings', 'custom_emojis'];

/** The instance's custom emojis for its owner: upload (shortcode, image, category) and delete. */
export function InstanceEmojis(): JSX.Element {
  const api = useApi();
  const client = useQueryClient();
  const query = useQuery({ queryKey: KEY, queryFn: () => api.fetchJson<Emoji[]>('/api/hearth/custom_emojis') });
  const [shortcode, setShortcode] = useState('');
  const [category, setCategory] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [formKey, setFormKey] = useState(0);
  const upload = useMutation({
    mutationFn: () => {
      const body = new FormData();
      body.append('shortcode', shortcode.trim().replace(/^:|:$/g, ''));
      if (category.trim()) body.append('category', category.trim());
      if (file) body.append('image', file, file.name);
      return api.fetchJson<Emoji>('/api/hearth/custom_emojis', { method: 'POST', body });
    },
    onSuccess: (emoji) => {
      client.setQueryData<Emoji[]>(KEY, (old) => [...(old ?? []), emoji]);
      setShortcode('');
      setFile(null);
      setFormKey(formKey + 1);
    },
  });
  const remove = useMutation({
    mutationFn: (e: Emoji) => api.fetchJson(`/api/hearth/custom_emojis/${encodeURIComponent(e.shortcode)}`, { method: 'DELETE' }),
    onMutate: async (e) => {
      await client.cancelQueries({ queryKey: KEY });
      const before = client.getQueryData<Emoji[]>(KEY);
      client.setQueryData<Emoji[]>(KEY, (old) => old?.filter((x) => x.shortcode !== e.shortcode));
      return { before };
    },
    onError: (error, e, context) => {
      client.setQueryData(KEY, context?.before);
      toast(`:${e.shortcode}: was not deleted: ${describeError(error)}`, { retry: () => remove.mutate(e) });
    },
  });
  return (
    <Section title="Custom emojis">
      <QueryState query={query} label="custom emojis">
        {() =>
          query.data?.length ? (
            <ul class="rows" aria-label="Custom emojis">
              {query.data.map((e) => (
                <li key={e.shortcode}>
                  <img src={e.static_url} alt="" width={32} height={32} />
                  <span class="grow">
                    :{e.shortcode}: {e.category && <span class="hint">{e.category}</span>}
                  </span>
                  <button type="button" aria-label={`Delete :${e.shortcode}:`} onClick={() => remove.mutate(e)}>
                    Delete
                  </button>
                </li>
              ))}
            </ul>
          ) : (
            <p>No custom emojis yet.</p>
          )
        }
      </QueryState>
      <form
        key={formKey}
        onSubmit={(e) => {
          e.preventDefault();
          if (file && shortcode.trim()) upload.mutate();
        }}
      >
        <label for="emoji-shortcode">Shortcode</label>
        <input id="emoji-shortcode" type="text" required pattern=":?[A-Za-z0-9_]{2,}:?" value={shortcode} onInput={(e) => setShortcode(e.currentTarget.value)} />
        <label for="emoji-category">Category (optional)</label>
        <input id="emoji-category" type="text" value={category} onInput={(e) => setCategory(e.currentTarget.value)} />
        <label for="emoji-image">Image (PNG, GIF or WebP)</label>
        <input id="emoji-image" type="file" required accept="image/png,image/gif,image/webp" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        {upload.isError && <p role="alert">{describeError(upload.error)}</p>}
        <div class="actions">
          <button type="submit" disabled={upload.isPending}>
            Upload emoji
          </button>
        </div>
      </form>
    </Section>
  );
}
