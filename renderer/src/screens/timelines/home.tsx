import { useQuery } from '@tanstack/preact-query';
import type { JSX } from 'preact';
import { useCallback, useEffect, useRef } from 'preact/hooks';
import { useApi, type Api } from '../../instance/client';
import { Announcements } from '../../components/announcements/Announcements';
import { newerId as newer } from '../../components/timeline/ids';
import { Timeline } from '../../components/timeline/Timeline';

/** How often at most the read marker is saved while the reader scrolls. */
const MARKER_EVERY_MS = 3_000;


/**
 * Saves the home read marker (`POST /api/v1/markers`): the newest post the reader has had at the
 * top of the screen, at most every few seconds, and once more when the screen closes.
 */
function useMarkerSaver(api: Api, saved: string | null | undefined): (id: string) => void {
  const last = useRef<string | null | undefined>(saved);
  const pending = useRef<string | null>(null);
  const timer = useRef<number | null>(null);
  useEffect(() => {
    if (newer(saved ?? '', last.current)) last.current = saved;
  }, [saved]);
  const flush = useCallback(() => {
    timer.current = null;
    const id = pending.current;
    pending.current = null;
    if (!id || !newer(id, last.current)) return;
    last.current = id;
    // A marker that failed to save is not worth an error message: the next scroll saves it again.
    api.rest.v1.markers.create({ home: { lastReadId: id } }).catch(() => {
      if (last.current === id) last.current = null;
    });
  }, [api]);
  useEffect(
    () => () => {
      if (timer.current !== null) clearTimeout(timer.current);
      flush();
    },
    [flush],
  );
  return useCallback(
    (id: string) => {
      if (!newer(id, pending.current ?? last.current)) return;
      pending.current = id;
      timer.current ??= window.setTimeout(flush, MARKER_EVERY_MS);
    },
    [flush],
  );
}

/**
 * The home timeline: posts of the people and hashtags followed, live over the `user` stream, the
 * instance's announcements on top, and the read marker: where the reader left off is marked (with
 * a button to jump there), and the newest post read is saved as they scroll.
 */
export function Home(): JSX.Element {
  const api = useApi();
  const marker = useQuery({
    queryKey: ['markers', 'home'],
    queryFn: async () => (await api.rest.v1.markers.fetch({ timeline: ['home'] })).home?.lastReadId ?? null,
    staleTime: Infinity,
  });
  const save = useMarkerSaver(api, marker.data);
  return (
    <section aria-labelledby="home-title">
      <h1 id="home-title">Home</h1>
      <Announcements />
      <Timeline
        label="Home"
        queryKey={['timeline', 'home']}
        fetchPage={(a, maxId) => a.rest.v1.timelines.home.list({ limit: 20, maxId })}
        stream={(a) => a.streaming().user.subscribe()}
        onTopSeen={marker.isPending ? undefined : save}
        markerId={marker.data}
        context="home"
        empty="Your home timeline is empty. Follow people to see their posts here."
      />
    </section>
  );
}
