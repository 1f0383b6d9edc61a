import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { beginSignIn } from '../../instance/oauth';
import { describeError } from '../../instance/errors';
import { Field } from './Field';
import { FormFailure, requestJson, type SetupState } from './public-api';

/** Where the first run continues once the owner is signed in: the choice of how the instance is reached. */
export const REACH_STEP = '/connection?setup=1';

/**
 * The first run on an instance without an owner: the owner's username, e-mail address and
 * password (`POST /api/hearth/setup`, with the setup token from the link the server printed when
 * this browser is not on the instance's computer). Creating the owner starts a browser session at
 * the instance, so signing in that follows only asks to authorize the app; then the person
 * chooses how the instance is reached.
 */
export function FirstRun(props: { state: SetupState; token: string | undefined; onGone: () => void }): JSX.Element {
  const [values, setValues] = useState({ username: '', email: '', password: '', confirm: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof typeof values) => (value: string) => setValues({ ...values, [key]: value });

  if (!props.state.allowed)
    return (
      <section aria-labelledby="first-run-title">
        <h2 id="first-run-title">Set up this instance</h2>
        <p role="alert">
          Setting up Hearth is only possible on the computer it runs on, or with the setup link the server printed when it started. Open that link
          to continue.
        </p>
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
      await requestJson('/api/hearth/setup', {
        method: 'POST',
        body: { username: values.username.trim(), email: values.email.trim(), password: values.password, ...(props.token ? { token: props.token } : {}) },
      });
      setMessage('Your account is ready. Signing you in…');
      await beginSignIn({ returnTo: REACH_STEP });
    } catch (error) {
      setBusy(false);
      if (error instanceof FormFailure && error.status === 404) return props.onGone();
      if (error instanceof FormFailure && error.status === 422 && Object.keys(error.fields).length) setErrors(error.fields);
      else if (error instanceof FormFailure && error.status === 403)
        setMessage('Setting up Hearth is only possible on the computer it runs on, or with the setup link the server printed when it started.');
      else setMessage(describeError(error));
    }
  };

  return (
    <section aria-labelledby="first-run-title">
      <h2 id="first-run-title">Create your account</h2>
      <p>This is a new Hearth. The first account is yours: you own this instance and can invite your family afterwards.</p>
      <form class="welcome-form" onSubmit={submit} noValidate>
        <Field id="owner-username" label="Username" value={values.username} onInput={set('username')} error={errors.username} autoComplete="username" hint="Letters, numbers and underscores. It is part of your address and cannot change later." />
        <Field id="owner-email" label="E-mail address" type="email" value={values.email} onInput={set('email')} error={errors.email} autoComplete="email" />
        <Field id="owner-password" label="Password" type="password" value={values.password} onInput={set('password')} error={errors.password} autoComplete="new-password" />
        <Field id="owner-confirm" label="Confirm password" type="password" value={values.confirm} onInput={set('confirm')} error={errors.password_confirmation} autoComplete="new-password" />
        {message && (
          <p role={busy ? 'status' : 'alert'} class={busy ? undefined : 'error'}>
            {message}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Create account
        </button>
      </form>
    </section>
  );
}
