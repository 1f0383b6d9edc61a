import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { type CredentialAccount, useCredentials, useUpdateCredentials } from './account';
import { type Prefs, setPreference, usePreference } from '../../instance/prefs';
import { QueryState, Section } from '../../components/layout/section';

const VISIBILITIES = [
  ['public', 'Public'],
  ['unlisted', 'Quiet public'],
  ['private', 'Followers only'],
  ['direct', 'Mentioned people only'],
] as const;

const LANGUAGES = [
  ['', 'No default'],
  ['en', 'English'],
  ['de', 'Deutsch'],
  ['es', 'Español'],
  ['fr', 'Français'],
  ['it', 'Italiano'],
  ['ja', '日本語'],
  ['nl', 'Nederlands'],
  ['pt', 'Português'],
  ['sv', 'Svenska'],
] as const;

/** Settings > Preferences: posting defaults kept on the server, and this app's own choices. */
export function PreferencesSettings(): JSX.Element {
  const query = useCredentials();
  return (
    <>
      <QueryState query={query} label="your posting defaults">
        {() => query.data && <PostingDefaults account={query.data} />}
      </QueryState>
      <AppPreferences />
    </>
  );
}

function PostingDefaults(props: { account: CredentialAccount }): JSX.Element {
  const save = useUpdateCredentials();
  const [privacy, setPrivacy] = useState(props.account.source.privacy);
  const [language, setLanguage] = useState(props.account.source.language ?? '');
  const [sensitive, setSensitive] = useState(props.account.source.sensitive);
  const [busy, setBusy] = useState(false);
  const submit = async (): Promise<void> => {
    setBusy(true);
    const body = new FormData();
    body.append('source[privacy]', privacy);
    body.append('source[language]', language);
    body.append('source[sensitive]', String(sensitive));
    try {
      await save(body);
      toast('Posting defaults saved.', { kind: 'info' });
    } catch (error) {
      toast(`Posting defaults were not saved: ${describeError(error)}`, { retry: () => void submit() });
    } finally {
      setBusy(false);
    }
  };
  const languages = LANGUAGES.some(([code]) => code === language) ? LANGUAGES : [...LANGUAGES, [language, language] as const];
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Section title="Posting defaults">
        <label for="pref-visibility">Default visibility</label>
        <select id="pref-visibility" value={privacy} onChange={(e) => setPrivacy(e.currentTarget.value)}>
          {VISIBILITIES.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <label for="pref-language">Default language of posts</label>
        <select id="pref-language" value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
          {languages.map(([value, label]) => (
            <option key={value} value={value}>
              {label}
            </option>
          ))}
        </select>
        <label class="check">
          <input type="checkbox" checked={sensitive} onChange={(e) => setSensitive(e.currentTarget.checked)} />
          Always mark my media as sensitive
        </label>
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save posting defaults'}
          </button>
        </div>
      </Section>
    </form>
  );
}

function Toggle(props: { name: 'expandSpoilers' | 'autoplay' | 'reduceMotion'; label: string }): JSX.Element {
  const value = usePreference(props.name);
  return (
    <label class="check">
      <input type="checkbox" checked={value} onChange={(e) => setPreference(props.name, e.currentTarget.checked)} />
      {props.label}
    </label>
  );
}

/** Choices kept in this browser only (saved at once). */
function AppPreferences(): JSX.Element {
  const theme = usePreference('theme');
  return (
    <Section title="This app">
      <p class="hint">These are kept in this browser and apply at once.</p>
      <Toggle name="expandSpoilers" label="Always show posts behind content warnings" />
      <Toggle name="autoplay" label="Play animated images and videos automatically" />
      <Toggle name="reduceMotion" label="Reduce motion" />
      <fieldset>
        <legend>Theme</legend>
        {(
          [
            ['system', 'Follow the system'],
            ['light', 'Light'],
            ['dark', 'Dark'],
          ] as [Prefs['theme'], string][]
        ).map(([value, label]) => (
          <label class="check" key={value}>
            <input type="radio" name="theme" value={value} checked={theme === value} onChange={() => setPreference('theme', value)} />
            {label}
          </label>
        ))}
      </fieldset>
    </Section>
  );
}
