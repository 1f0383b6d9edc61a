import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { refreshAccount } from '../../instance/session';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { type CredentialAccount, useCredentials, useUpdateCredentials } from './account';
import { CropDialog } from './crop';
import { formBody, QueryState, Section } from '../../components/layout/section';

/** Settings > Profile: name, bio, pictures (cropped before upload), up to 4 fields and the account's flags. */
export function ProfileSettings(): JSX.Element {
  const query = useCredentials();
  return <QueryState query={query} label="your profile">{() => query.data && <ProfileForm account={query.data} />}</QueryState>;
}

type Flag = 'locked' | 'bot' | 'discoverable' | 'hide_collections' | 'indexable';
const FLAGS: { name: Flag; label: string; hint: string }[] = [
  { name: 'locked', label: 'Approve followers by hand', hint: 'People ask to follow you and you decide.' },
  { name: 'bot', label: 'This is a bot account', hint: 'It mostly acts on its own.' },
  { name: 'discoverable', label: 'Suggest this account to others', hint: 'In the directory and follow suggestions.' },
  { name: 'hide_collections', label: 'Hide who you follow and who follows you', hint: 'Your follows and followers are not shown on your profile.' },
  { name: 'indexable', label: 'Let your public posts be found by search', hint: 'Public posts can appear in search results.' },
];

function ProfileForm(props: { account: CredentialAccount }): JSX.Element {
  const a = props.account;
  const save = useUpdateCredentials();
  const [name, setName] = useState(a.display_name);
  const [note, setNote] = useState(a.source.note);
  const [fields, setFields] = useState(() => [...a.source.fields, ...Array.from({ length: 4 }, () => ({ name: '', value: '' }))].slice(0, 4));
  const [flags, setFlags] = useState<Record<Flag, boolean>>({
    locked: a.locked,
    bot: a.bot,
    discoverable: a.discoverable ?? false,
    hide_collections: a.hide_collections ?? false,
    indexable: a.indexable ?? false,
  });
  const [images, setImages] = useState<{ avatar?: Blob; header?: Blob }>({});
  const [cropping, setCropping] = useState<{ kind: 'avatar' | 'header'; file: File } | null>(null);
  const [busy, setBusy] = useState(false);
  const [previews, setPreviews] = useState<{ avatar?: string; header?: string }>({});

  const submit = async (): Promise<void> => {
    setBusy(true);
    const body = formBody({ display_name: name, note, avatar: images.avatar, header: images.header, ...flags });
    fields.forEach((f, i) => {
      body.append(`fields_attributes[${i}][name]`, f.name);
      body.append(`fields_attributes[${i}][value]`, f.value);
    });
    try {
      const saved = await save(body);
      refreshAccount(saved.id, { acct: saved.acct, displayName: saved.display_name || saved.acct, avatar: saved.avatar });
      setImages({});
      for (const url of Object.values(previews)) URL.revokeObjectURL(url);
      setPreviews({});
      toast('Profile saved.', { kind: 'info' });
    } catch (error) {
      toast(`Your profile was not saved: ${describeError(error)}`, { retry: () => void submit() });
    } finally {
      setBusy(false);
    }
  };

  const chosen = (kind: 'avatar' | 'header', input: HTMLInputElement): void => {
    const file = input.files?.[0];
    input.value = '';
    if (file) setCropping({ kind, file });
  };

  return (
    <form
      class="settings-form"
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      <Section title="About you">
        <label for="profile-name">Display name</label>
        <input id="profile-name" type="text" maxLength={30} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        <label for="profile-note">Bio</label>
        <textarea id="profile-note" rows={4} maxLength={500} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      </Section>
      <Section title="Pictures">
        <div class="profile-images">
          {(['avatar', 'header'] as const).map((kind) => (
            <div key={kind}>
              <img src={previews[kind] ?? (kind === 'avatar' ? a.avatar_static : a.header_static)} alt={kind === 'avatar' ? 'Current avatar' : 'Current header'} width={kind === 'avatar' ? 96 : 288} height={96} />
              <label for={`profile-${kind}`}>{kind === 'avatar' ? 'Avatar (square)' : 'Header (3:1)'}</label>
              <input id={`profile-${kind}`} type="file" accept="image/png,image/jpeg,image/gif,image/webp" onChange={(e) => chosen(kind, e.currentTarget)} />
              {images[kind] && <p class="hint">A new {kind} is ready; it is uploaded when you save.</p>}
            </div>
          ))}
        </div>
      </Section>
      <Section title="Profile fields">
        <p class="hint">Up to four labels and values shown on your profile (links can be verified).</p>
        {fields.map((f, i) => (
          <div class="field-row" key={i}>
            <div>
              <label for={`field-name-${i}`}>Label {i + 1}</label>
              <input id={`field-name-${i}`} type="text" maxLength={255} value={f.name} onInput={(e) => setFields(fields.map((g, j) => (j === i ? { ...g, name: e.currentTarget.value } : g)))} />
            </div>
            <div>
              <label for={`field-value-${i}`}>Content {i + 1}</label>
              <input id={`field-value-${i}`} type="text" maxLength={255} value={f.value} onInput={(e) => setFields(fields.map((g, j) => (j === i ? { ...g, value: e.currentTarget.value } : g)))} />
            </div>
          </div>
        ))}
      </Section>
      <Section title="Account">
        {FLAGS.map((f) => (
          <div key={f.name}>
            <label class="check">
              <input type="checkbox" checked={flags[f.name]} onChange={(e) => setFlags({ ...flags, [f.name]: e.currentTarget.checked })} />
              {f.label}
            </label>
            <p class="hint">{f.hint}</p>
          </div>
        ))}
      </Section>
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : 'Save profile'}
        </button>
      </div>
      {cropping && (
        <CropDialog
          file={cropping.file}
          aspect={cropping.kind === 'avatar' ? 1 : 3}
          title={cropping.kind === 'avatar' ? 'Crop the avatar' : 'Crop the header'}
          onClose={() => setCropping(null)}
          onCropped={(blob) => {
            const kind = cropping.kind;
            setImages((old) => ({ ...old, [kind]: blob }));
            setPreviews((old) => {
              if (old[kind]) URL.revokeObjectURL(old[kind]);
              return { ...old, [kind]: URL.createObjectURL(blob) };
            });
            setCropping(null);
          }}
        />
      )}
    </form>
  );
}
