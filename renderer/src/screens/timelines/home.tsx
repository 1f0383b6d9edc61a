import type { JSX } from 'preact';
import { Timeline } from '../../components/timeline/Timeline';

/** The home timeline: posts of the people and hashtags followed, live over the `user` stream. */
export function Home(): JSX.Element {
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title">Home</h1>
      <Timeline
        label="Home"
        queryKey={['timeline', 'home']}
        fetchPage={(api, maxId) => api.rest.v1.timelines.home.list({ limit: 20, maxId })}
        stream={(api) => api.streaming().user.subscribe()}
        empty="Your home timeline is empty. Follow people to see their posts here."
      />
    </section>
  );
}
