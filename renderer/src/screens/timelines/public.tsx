import type { JSX } from 'preact';
import { Timeline } from '../../components/timeline/Timeline';

/** Posts from this instance's people. */
export function Local(): JSX.Element {
  return (
    <section aria-labelledby="local-title">
      <h1 id="local-title">Local</h1>
      <Timeline
        label="Local"
        queryKey={['timeline', 'local']}
        fetchPage={(api, maxId) => api.rest.v1.timelines.public.list({ limit: 20, maxId, local: true })}
        stream={(api) => api.streaming().public.local.subscribe()}
        context="public"
      />
    </section>
  );
}

/** Public posts this instance knows of, from everywhere. */
export function Federated(): JSX.Element {
  return (
    <section aria-labelledby="federated-title">
      <h1 id="federated-title">Federated</h1>
      <Timeline
        label="Federated"
        queryKey={['timeline', 'federated']}
        fetchPage={(api, maxId) => api.rest.v1.timelines.public.list({ limit: 20, maxId })}
        stream={(api) => api.streaming().public.subscribe()}
        context="public"
      />
    </section>
  );
}
