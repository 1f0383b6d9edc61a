import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import type { JSX } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useApi } from '../../instance/client';
import { localMediaUrl } from '../media/local';

/** One suggestion: what the list shows and what replaces the word being typed. */
interface Suggestion {
  key: string;
  label: string;
  detail: string;
  replacement: string;
  image: string | null;
}

/** The word at the caret that asks for suggestions: `@name`, `#tag` or `:emoji`. */
interface Token {
  kind: '@' | '#' | ':';
  query: string;
  start: number;
  end: number;
}

const TOKEN = /(?:^|[^\p{L}\p{N}_@#:/])([@#:])([\p{L}\p{N}_.@-]*)$/u;

/** Finds the word being typed before the caret, if it is one that gets suggestions. */
export function tokenAt(text: string, caret: number): Token | null {
  const match = TOKEN.exec(text.slice(0, caret));
  if (!match) return null;
  const kind = match[1] as Token['kind'];
  const query = match[2] ?? '';
  if (query.length < (kind === ':' ? 2 : 1)) return null;
  return { kind, query, start: caret - query.length - 1, end: caret };
}

/** The instance's custom emojis (shared by every composer; they change rarely). */
export function useCustomEmojis(): mastodon.v1.CustomEmoji[] {
  const api = useApi();
  const query = useQuery({ queryKey: ['custom-emojis'], queryFn: async () => await api.rest.v1.customEmojis.list(), staleTime: 10 * 60_000 });
  return query.data ?? [];
}

/**
 * The post's text area with suggestions for @mentions (account search), #hashtags (hashtag
 * search) and :emoji: (the instance's custom emojis): a `listbox` under the text, moved through
 * with the arrow keys and chosen with Enter or Tab (Escape closes it). The text area points at the
 * list and its active option (`aria-controls`, `aria-activedescendant`) as an ARIA combobox does.
 */
export function ComposeTextarea(props: { id: string; value: string; onInput: (value: string) => void; placeholder?: string; rows?: number; describedBy?: string; autoFocus?: boolean }): JSX.Element {
  const api = useApi();
  const emojis = useCustomEmojis();
  const ref = useRef<HTMLTextAreaElement>(null);
  const [token, setToken] = useState<Token | null>(null);
  const [items, setItems] = useState<Suggestion[]>([]);
  const [active, setActive] = useState(0);
  const sequence = useRef(0);
  const listId = `${props.id}-suggestions`;

  useEffect(() => {
    if (props.autoFocus) ref.current?.focus();
  }, []);

  // Looks suggestions up shortly after typing stops; an older answer never replaces a newer one.
  useEffect(() => {
    const current = ++sequence.current;
    if (!token) {
      setItems([]);
      return;
    }
    const timer = setTimeout(() => {
      void lookUp(token).then(
        (found) => {
          if (current !== sequence.current) return;
          setItems(found);
          setActive(0);
        },
        () => current === sequence.current && setItems([]),
      );
    }, 150);
    return () => clearTimeout(timer);
  }, [token?.kind, token?.query, token?.start]);

  async function lookUp(t: Token): Promise<Suggestion[]> {
    if (t.kind === ':') {
      const q = t.query.toLowerCase();
      return emojis
        .filter((e) => e.visibleInPicker && e.shortcode.toLowerCase().includes(q))
        .sort((a, b) => Number(!a.shortcode.toLowerCase().startsWith(q)) - Number(!b.shortcode.toLowerCase().startsWith(q)))
        .slice(0, 8)
        .map((e) => ({ key: e.shortcode, label: `:${e.shortcode}:`, detail: '', replacement: `:${e.shortcode}: `, image: e.staticUrl || e.url }));
    }
    if (t.kind === '@') {
      const accounts = await api.rest.v1.accounts.search.list({ q: t.query, limit: 6, resolve: false });
      return accounts.map((a) => ({ key: a.id, label: a.displayName || a.username, detail: `@${a.acct}`, replacement: `@${a.acct} `, image: a.avatarStatic || a.avatar }));
    }
    const results = await api.rest.v2.search.list({ q: t.query, type: 'hashtags', limit: 6 });
    return results.hashtags.map((h) => ({ key: h.name, label: `#${h.name}`, detail: '', replacement: `#${h.name} `, image: null }));
  }

  const refresh = (el: HTMLTextAreaElement) => {
    const caret = el.selectionStart === el.selectionEnd ? el.selectionStart : -1;
    setToken(caret >= 0 ? tokenAt(el.value, caret) : null);
  };

  const choose = (s: Suggestion) => {
    const el = ref.current;
    if (!el || !token) return;
    const before = props.value.slice(0, token.start);
    const after = props.value.slice(token.end);
    const next = `${before}${s.replacement}${after.startsWith(' ') ? after.slice(1) : after}`;
    const caret = before.length + s.replacement.length;
    props.onInput(next);
    setToken(null);
    setItems([]);
    requestAnimationFrame(() => {
      el.focus();
      el.setSelectionRange(caret, caret);
    });
  };

  const open = token !== null && items.length > 0;
  const onKeyDown = (e: KeyboardEvent) => {
    if (!open || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((i) => (i + (e.key === 'ArrowDown' ? 1 : items.length - 1)) % items.length);
    } else if (e.key === 'Enter' || e.key === 'Tab') {
      const s = items[active];
      if (s) {
        e.preventDefault();
        choose(s);
      }
    } else if (e.key === 'Escape') {
      e.preventDefault();
      e.stopPropagation();
      setToken(null);
    }
  };

  return (
    <div class="compose-textarea">
      <textarea
        ref={ref}
        id={props.id}
        rows={props.rows ?? 6}
        value={props.value}
        placeholder={props.placeholder}
        aria-describedby={props.describedBy}
        aria-autocomplete="list"
        aria-controls={open ? listId : undefined}
        aria-activedescendant={open ? `${listId}-${active}` : undefined}
        onInput={(e) => {
          props.onInput(e.currentTarget.value);
          refresh(e.currentTarget);
        }}
        onKeyDown={onKeyDown}
        onClick={(e) => refresh(e.currentTarget)}
        onBlur={() => setTimeout(() => setToken(null), 200)}
      />
      {open && (
        <ul id={listId} role="listbox" class="compose-suggestions" aria-label="Suggestions">
          {items.map((s, i) => (
            <li
              key={s.key}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              onMouseDown={(e) => {
                // Keeps the focus in the text area.
                e.preventDefault();
                choose(s);
              }}
            >
              {localMediaUrl(s.image) && <img src={localMediaUrl(s.image)} alt="" class="compose-suggestion-image" />}
              <span class="compose-suggestion-label">{s.label}</span>
              {s.detail && <span class="compose-suggestion-detail"> {s.detail}</span>}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
