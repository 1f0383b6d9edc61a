import { useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure, useApi } from '../../instance/client';
import { describeError } from '../../instance/errors';
import { toast } from '../../components/layout/toasts';
import { Restart } from './Restart';
import type { Reach } from './types';

const CHOICES: { mode: Reach['mode']; label: string; hint: string }[] = [
  { mode: 'local', label: 'Only on this computer', hint: 'Hearth answers on this computer and your home network. Nobody outside can follow you.' },
  { mode: 'origin', label: 'At my own address behind my proxy', hint: 'Your own domain name, with a proxy that serves it over https and forwards to Hearth.' },
  { mode: 'relay', label: 'Through a relay', hint: 'A relay gives Hearth a public address and holds what arrives while this computer is off.' },
];

/**
 * The choice of how the instance is reached (local only, a public origin behind the person's own
 * proxy, or a relay with its enrolment code), saved with `PUT /api/hearth/reach`. The instance's
 * refusals (an origin that is not https, an origin that cannot change once the instance has
 * federated) are shown at the form; when the running server needs a restart, the person is told
 * and may restart it from here.
 */
export function ReachForm(props: {
  current: Reach | null;
  submitLabel: string;
  onSaved?: (reach: Reach) => void;
  /** False where the screen already shows the restart notice of the saved state. */
  restartNotice?: boolean;
}): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const [mode, setMode] = useState<Reach['mode']>(props.current?.mode ?? 'local');
  const [origin, setOrigin] = useState(props.current?.origin ?? '');
  const [relayUrl, setRelayUrl] = useState(props.current?.relay_url ?? '');
  const [code, setCode] = useState('');
  const [refusal, setRefusal] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [saved, setSaved] = useState<Reach | null>(null);

  const save = async (): Promise<void> => {
    setBusy(true);
    setRefusal(null);
    const body = mode === 'origin' ? { mode, origin: origin.trim() } : mode === 'relay' ? { mode, relay_url: relayUrl.trim(), relay_code: code.trim() } : { mode };
    try {
      const reach = await api.fetchJson<Reach>('/api/hearth/reach', { method: 'PUT', body: JSON.stringify(body) });
      qc.setQueryData(['hearth', 'reach'], reach);
      void qc.invalidateQueries({ queryKey: ['hearth', 'relay'] });
      setSaved(reach);
      setCode('');
      props.onSaved?.(reach);
    } catch (error) {
      // The instance's reasons for refusing the choice belong at the form; anything else is a failure to retry.
      if (error instanceof ApiFailure && (error.status === 422 || error.status === 409 || error.status === 400)) setRefusal(error.message);
      else toast(describeError(error), { retry: () => void save() });
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      class="reach-form"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <fieldset>
        <legend>How is this instance reached?</legend>
        {CHOICES.map((c) => (
          <div class="reach-choice" key={c.mode}>
            <input type="radio" id={`reach-mode-${c.mode}`} name="reach" value={c.mode} checked={mode === c.mode} onChange={() => setMode(c.mode)} aria-describedby={`reach-mode-${c.mode}-hint`} />
            <label for={`reach-mode-${c.mode}`}>{c.label}</label>
            <p class="field-hint" id={`reach-mode-${c.mode}-hint`}>
              {c.hint}
            </p>
          </div>
        ))}
      </fieldset>
      {mode === 'origin' && (
        <div class="field">
          <label for="reach-origin">Public address</label>
          <input id="reach-origin" type="url" required placeholder="https://social.example.org" value={origin} onInput={(e) => setOrigin(e.currentTarget.value)} />
        </div>
      )}
      {mode === 'relay' && (
        <>
          <div class="field">
            <label for="reach-relay-url">Relay address</label>
            <input id="reach-relay-url" type="url" required placeholder="https://relay.example.org" value={relayUrl} onInput={(e) => setRelayUrl(e.currentTarget.value)} />
          </div>
          <div class="field">
            <label for="reach-relay-code">Enrolment code</label>
            <input id="reach-relay-code" type="text" required autoComplete="off" value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          </div>
        </>
      )}
      {refusal && (
        <p role="alert" class="error">
          {refusal}
        </p>
      )}
      <div class="form-actions">
        <button type="submit" class="primary" disabled={busy}>
          {props.submitLabel}
        </button>
      </div>
      {saved && (saved.restart_required && props.restartNotice !== false ? <Restart available={saved.restart_available ?? false} /> : <p role="status">Saved.</p>)}
    </form>
  );
}
