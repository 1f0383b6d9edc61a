import { useQueryClient } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { ApiFailure, useApi, type Api } from '../../instance/client';
import { describeError } from '../../instance/errors';
import type { Reach } from './types';

type Phase = 'idle' | 'restarting' | 'done' | 'unsupported' | 'failed';

/**
 * Waits until the server answers again (`/health`) as the restarted one: the one before the
 * restart still has the choice pending, the restarted one (or the old setting put back after a
 * failed start) has not. Gives up after a minute.
 */
async function waitForRestart(api: Api): Promise<Reach | null> {
  const until = Date.now() + 60_000;
  while (Date.now() < until) {
    await new Promise((r) => setTimeout(r, 500));
    try {
      const health = await fetch('/health', { cache: 'no-store' });
      if (!health.ok) continue;
      const reach = await api.fetchJson<Reach>('/api/hearth/reach');
      if (!reach.restart_required) return reach;
    } catch {
      // Not back yet.
    }
  }
  return null;
}

/**
 * Tells the owner that the saved choice takes effect after a restart and, when the server can
 * restart itself, offers to (`POST /api/hearth/restart`), then waits until it answers again.
 */
export function Restart(props: { available: boolean; onRestarted?: () => void }): JSX.Element {
  const api = useApi();
  const qc = useQueryClient();
  const [phase, setPhase] = useState<Phase>(props.available ? 'idle' : 'unsupported');
  const [error, setError] = useState('');

  const restart = async () => {
    setPhase('restarting');
    try {
      await api.fetchJson('/api/hearth/restart', { method: 'POST', body: '{}' });
      const reach = await waitForRestart(api);
      if (!reach) throw new Error('Hearth did not come back within a minute. Is it still running?');
      // A setting that does not start is undone by the server, which says why.
      if (reach.last_restart_error) throw new Error(`Hearth could not start with the new setting and went back to the old one: ${reach.last_restart_error}`);
      setPhase('done');
      props.onRestarted?.();
      // What the screens show comes from the restarted server.
      void qc.invalidateQueries();
    } catch (e) {
      if (e instanceof ApiFailure && (e.status === 404 || e.status === 405 || e.status === 501)) return setPhase('unsupported');
      setError(describeError(e));
      setPhase('failed');
    }
  };

  const text =
    phase === 'done'
      ? 'Hearth has restarted with the new setting.'
      : phase === 'unsupported'
        ? 'Hearth cannot restart itself here: restart it where it runs to use the new setting.'
        : phase === 'restarting'
          ? 'Restarting Hearth…'
          : 'Hearth needs a restart to use the new setting.';
  return (
    <div class="restart">
      <p role="status">{text}</p>
      {phase === 'failed' && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {(phase === 'idle' || phase === 'failed' || phase === 'restarting') && (
        <button type="button" onClick={() => void restart()} disabled={phase === 'restarting'}>
          Restart now
        </button>
      )}
    </div>
  );
}
