import type { mastodon } from 'masto';
import type { JSX } from 'preact';

const LANGUAGES = ['ar', 'bg', 'ca', 'cs', 'cy', 'da', 'de', 'el', 'en', 'eo', 'es', 'et', 'eu', 'fa', 'fi', 'fr', 'ga', 'gl', 'he', 'hi', 'hr', 'hu', 'id', 'is', 'it', 'ja', 'ko', 'lt', 'lv', 'nl', 'no', 'pl', 'pt', 'ro', 'ru', 'sk', 'sl', 'sr', 'sv', 'th', 'tr', 'uk', 'vi', 'zh'];

let names: Intl.DisplayNames | null = null;

/** A language's name in the reader's language ("German"), or its code when the browser does not know it. */
function languageName(code: string): string {
  try {
    names ??= new Intl.DisplayNames([navigator.language || 'en'], { type: 'language' });
    return names.of(code) ?? code;
  } catch {
    return code;
  }
}

/** The language picker (ISO 639-1 codes; the current one is always offered). */
export function LanguageSelect(props: { value: string; onChange: (code: string) => void }): JSX.Element {
  const codes = LANGUAGES.includes(props.value) || !props.value ? LANGUAGES : [props.value, ...LANGUAGES];
  const options = codes.map((c) => ({ code: c, name: languageName(c) })).sort((a, b) => a.name.localeCompare(b.name));
  return (
    <div class="compose-option">
      <label for="compose-language">Language</label>
      <select id="compose-language" value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {options.map((o) => (
          <option key={o.code} value={o.code}>
            {o.name}
          </option>
        ))}
      </select>
    </div>
  );
}

const VISIBILITIES: { value: mastodon.v1.StatusVisibility; label: string }[] = [
  { value: 'public', label: 'Public' },
  { value: 'unlisted', label: 'Unlisted' },
  { value: 'private', label: 'Followers only' },
  { value: 'direct', label: 'Mentioned people only' },
];

/** Who sees the post; an edit cannot change it (Mastodon keeps the visibility of a post). */
export function VisibilitySelect(props: { value: mastodon.v1.StatusVisibility; onChange: (v: mastodon.v1.StatusVisibility) => void; disabled?: boolean }): JSX.Element {
  return (
    <div class="compose-option">
      <label for="compose-visibility">Visibility</label>
      <select id="compose-visibility" value={props.value} disabled={props.disabled} onChange={(e) => props.onChange(e.currentTarget.value as mastodon.v1.StatusVisibility)}>
        {VISIBILITIES.map((v) => (
          <option key={v.value} value={v.value}>
            {v.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/** Who may quote the post (Mastodon 4.5's quote approval policy); only public and unlisted posts can be quoted by others. */
export function QuotePolicySelect(props: { value: string; onChange: (v: string) => void; disabled: boolean }): JSX.Element {
  return (
    <div class="compose-option">
      <label for="compose-quote-policy">Who can quote</label>
      <select id="compose-quote-policy" value={props.disabled ? 'nobody' : props.value} disabled={props.disabled} onChange={(e) => props.onChange(e.currentTarget.value)}>
        <option value="public">Anyone</option>
        <option value="followers">Followers only</option>
        <option value="nobody">Just me</option>
      </select>
    </div>
  );
}
