import { useQuery } from '@tanstack/preact-query';
import type { ComponentChildren, JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { describeError } from '../../instance/errors';
import { beginSignIn } from '../../instance/oauth';
import { FirstRun } from './FirstRun';
import { FormFailure, requestJson, type InstanceInfo, type SetupState } from './public-api';
import { SignUp } from './SignUp';
import './welcome.css';
import { ErrorRetry } from '../../components/layout/ErrorRetry';

/** `GET /api/hearth/setup`; an instance without the endpoint has nothing to set up in the app. */
async function fetchSetup(token: string | undefined): Promise<SetupState> {
  try {
    return await requestJson<SetupState>(`/api/hearth/setup${token ? `?token=${encodeURIComponent(token)}` : ''}`);
  } catch (error) {
    if (error instanceof FormFailure && error.status === 404) return { needed: false, allowed: false };
    throw error;
  }
}

/** "Sign in" through the instance's OAuth pages, coming back to `path`; with what else goes beside it. */
function SignInButton(props: { path: string; primary?: boolean; children?: ComponentChildren }): JSX.Element {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const signIn = () => {
    setBusy(true);
    setError(null);
    const returnTo = props.path !== '/' && props.path !== '/callback' ? props.path : '/';
    void beginSignIn({ returnTo }).catch((e: unknown) => {
      setBusy(false);
      setError(describeError(e));
    });
  };
  return (
    <>
      <div class="form-actions">
        <button type="button" class={props.primary ? 'primary' : undefined} disabled={busy} onClick={signIn}>
          Sign in
        </button>
        {props.children}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </>
  );
}

/**
 * Signed out: on a new instance without an owner, the first run; otherwise the instance's name
 * and description, "Sign in" through the instance's OAuth pages and, when the instance takes
 * sign-ups, "Create an account".
 */
export function Welcome(): JSX.Element {
  const { path, query } = useLocation();
  const token = query.token || undefined;
  const setup = useQuery({ queryKey: ['hearth', 'setup', token], queryFn: () => fetchSetup(token) });
  const instance = useQuery({ queryKey: ['instance', 'v2'], queryFn: () => requestJson<InstanceInfo>('/api/v2/instance') });
  const [signingUp, setSigningUp] = useState(false);

  if (setup.isPending || instance.isPending)
    return (
      <main class="centered" id="content">
        <p role="status" class="loading">
          Loading…
        </p>
      </main>
    );
  const failed = setup.error ?? instance.error;
  if (failed || !setup.data || !instance.data)
    return (
      <main class="centered" id="content">
        <h1>Hearth</h1>
        <ErrorRetry error={failed} onRetry={() => Promise.all([setup.refetch(), instance.refetch()])} />
      </main>
    );

  const info = instance.data;
  if (setup.data.needed)
    return (
      <main class="centered welcome" id="content">
        <h1>Welcome to Hearth</h1>
        <FirstRun state={setup.data} token={token} onGone={() => void setup.refetch()} />
        {/* Accounts made on the command line before anyone became the owner can still sign in. */}
        <p class="welcome-aside">Already have an account here?</p>
        <SignInButton path={path} />
      </main>
    );

  return (
    <main class="centered welcome" id="content">
      <h1>{info.title || 'Hearth'}</h1>
      {info.description && <p class="welcome-description">{info.description}</p>}
      {signingUp && info.registrations.enabled ? (
        <SignUp instance={info} onCancel={() => setSigningUp(false)} />
      ) : (
        <>
          <SignInButton path={path} primary>
            {info.registrations.enabled && (
              <button type="button" onClick={() => setSigningUp(true)}>
                Create an account
              </button>
            )}
          </SignInButton>
          {!info.registrations.enabled && <p class="field-hint">{info.registrations.message ?? 'This instance is not taking sign-ups. Ask the person who runs it for an account.'}</p>}
        </>
      )}
    </main>
  );
}
