import { useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { describeError } from '../../instance/errors';
import { appAccessToken, SCOPES, storeSignedIn } from '../../instance/oauth';
import { Field } from './Field';
import { FormFailure, requestJson, type InstanceInfo, type Rule } from './public-api';

type Outcome = { kind: 'approval' } | { kind: 'confirm'; email: string };

/**
 * Creating an account in the app, as Mastodon clients do it: an app token (client_credentials),
 * then `POST /api/v1/accounts` with the username, e-mail address, password, the agreement to the
 * instance's rules and, when the instance approves sign-ups, the reason. The token that comes
 * back either works (signed in), or the instance says the account waits for approval or for its
 * e-mail address to be confirmed, which is what the person is told.
 */
export function SignUp(props: { instance: InstanceInfo; onCancel: () => void }): JSX.Element {
  const { route } = useLocation();
  const rules = useQuery({ queryKey: ['instance', 'rules'], queryFn: () => requestJson<Rule[]>('/api/v1/instance/rules') });
  const [values, setValues] = useState({ username: '', email: '', password: '', confirm: '', reason: '' });
  const [agreed, setAgreed] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const set = (key: keyof typeof values) => (value: string) => setValues({ ...values, [key]: value });
  const approval = props.instance.registrations.approval_required;

  if (outcome)
    return (
      <section aria-labelledby="signup-title">
        <h2 id="signup-title">{outcome.kind === 'approval' ? 'Waiting for approval' : 'Confirm your e-mail address'}</h2>
        <p role="status">
          {outcome.kind === 'approval'
            ? 'Your account has been created and is waiting for approval. Someone who runs this instance will look at it; you can sign in once it is approved.'
            : `Your account has been created. We sent a link to ${outcome.email}: open it to confirm your address, then sign in.`}
        </p>
        <button type="button" onClick={props.onCancel}>
          Back
        </button>
      </section>
    );

  const submit = async (e: Event) => {
    e.preventDefault();
    if (values.password !== values.confirm) {
      setErrors({ password_confirmation: 'The two passwords are not the same.' });
      return;
    }
    setBusy(true);
    setErrors({});
    setMessage(null);
    try {
      const appToken = await appAccessToken();
      const token = await requestJson<{ access_token: string; scope?: string }>('/api/v1/accounts', {
        method: 'POST',
        token: appToken,
        body: {
          username: values.username.trim(),
          email: values.email.trim(),
          password: values.password,
          agreement: agreed,
          locale: navigator.language.split('-')[0],
          ...(approval && values.reason.trim() ? { reason: values.reason.trim() } : {}),
        },
      });
      // Whether the new token can be used yet is what the instance says of it.
      const check = await fetch('/api/v1/accounts/verify_credentials', { headers: { Authorization: `Bearer ${token.access_token}` } });
      if (check.status === 403) {
        const body = (await check.json().catch(() => ({}))) as { error?: string };
        setOutcome(/confirm/i.test(body.error ?? '') ? { kind: 'confirm', email: values.email.trim() } : { kind: 'approval' });
        return;
      }
      route('/', true);
      await storeSignedIn(token.access_token, token.scope ?? SCOPES);
    } catch (error) {
      setBusy(false);
      if (error instanceof FormFailure && error.status === 422 && Object.keys(error.fields).length) setErrors(error.fields);
      else setMessage(describeError(error));
    }
  };

  return (
    <section aria-labelledby="signup-title">
      <h2 id="signup-title">Create an account</h2>
      {approval && <p>Sign-ups on this instance are approved by the people who run it.</p>}
      <form class="welcome-form" onSubmit={submit} noValidate>
        <Field id="signup-username" label="Username" value={values.username} onInput={set('username')} error={errors.username} autoComplete="username" />
        <Field id="signup-email" label="E-mail address" type="email" value={values.email} onInput={set('email')} error={errors.email} autoComplete="email" />
        <Field id="signup-password" label="Password" type="password" value={values.password} onInput={set('password')} error={errors.password} autoComplete="new-password" />
        <Field id="signup-confirm" label="Confirm password" type="password" value={values.confirm} onInput={set('confirm')} error={errors.password_confirmation} autoComplete="new-password" />
        {approval && (
          <Field
            id="signup-reason"
            label="Why do you want to join?"
            multiline
            value={values.reason}
            onInput={set('reason')}
            error={errors.reason}
            required={props.instance.registrations.reason_required ?? false}
          />
        )}
        <h3 id="rules-title">Rules of this instance</h3>
        {rules.isPending && <p role="status">Loading the rules…</p>}
        {rules.isError && (
          <div class="error">
            <p>{describeError(rules.error)}</p>
            <button type="button" onClick={() => void rules.refetch()}>
              Try again
            </button>
          </div>
        )}
        {rules.data && rules.data.length === 0 && <p>This instance has no rules of its own.</p>}
        {rules.data && rules.data.length > 0 && (
          <ol aria-labelledby="rules-title" class="rules">
            {rules.data.map((r) => (
              <li key={r.id}>
                {r.text}
                {r.hint && <span class="field-hint"> {r.hint}</span>}
              </li>
            ))}
          </ol>
        )}
        <div class="check">
          <input id="signup-agreement" type="checkbox" checked={agreed} onChange={(e) => setAgreed(e.currentTarget.checked)} aria-invalid={errors.agreement ? true : undefined} aria-describedby={errors.agreement ? 'signup-agreement-error' : undefined} />
          <label for="signup-agreement">I agree to the rules of this instance</label>
          {errors.agreement && (
            <p class="field-error" id="signup-agreement-error">
              {/must be accepted/.test(errors.agreement) ? 'Please agree to the rules to create an account.' : errors.agreement}
            </p>
          )}
        </div>
        {message && (
          <p role="alert" class="error">
            {message}
          </p>
        )}
        <div class="form-actions">
          <button type="submit" class="primary" disabled={busy}>
            Create account
          </button>
          <button type="button" onClick={props.onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
