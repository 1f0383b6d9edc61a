import { useQuery } from '@tanstack/preact-query';
import type { mastodon } from 'masto';
import { useApi } from '../../instance/client';
import { usePreference } from '../../instance/prefs';

/** How posts are shown by default: the account's reading preferences (`GET /api/v1/preferences`). */
export interface ReadingPreferences {
  /** Content warnings open without a click. */
  expandSpoilers: boolean;
  /** `default`: sensitive media hidden; `show_all`: never hidden; `hide_all`: always hidden. */
  expandMedia: 'default' | 'show_all' | 'hide_all';
}

const DEFAULTS: ReadingPreferences = { expandSpoilers: false, expandMedia: 'default' };

/**
 * The signed-in person's reading preferences (the defaults until they have loaded): the account's
 * own (`GET /api/v1/preferences`, which Mastodon sets in its web settings and the API cannot
 * write), with what this app's Settings > Preferences turned on in this browser (`hearth.prefs`).
 */
export function useReadingPreferences(): ReadingPreferences {
  const api = useApi();
  const localExpand = usePreference('expandSpoilers');
  const query = useQuery({
    queryKey: ['preferences'],
    queryFn: () => api.rest.v1.preferences.fetch(),
    staleTime: 5 * 60_000,
  });
  const p: mastodon.v1.Preference | undefined = query.data;
  if (!p) return { ...DEFAULTS, expandSpoilers: localExpand };
  const media = p['reading:expand:media'];
  return {
    expandSpoilers: localExpand || p['reading:expand:spoilers'] === true,
    expandMedia: media === 'show_all' || media === 'hide_all' ? media : 'default',
  };
}

/** Where a post is shown, as filters name it. */
export type FilterContext = 'home' | 'public' | 'thread' | 'account' | 'notifications';

/** The filters that apply to a post in a context, split by what they do (Mastodon's rules). */
export function matchedFilters(status: mastodon.v1.Status, context: FilterContext): { hide: boolean; warn: string[] } {
  const out = { hide: false, warn: [] as string[] };
  for (const result of status.filtered ?? []) {
    const filter = result.filter;
    if (!filter.context.includes(context)) continue;
    // An expired filter no longer applies, even if the server still reported it.
    if (filter.expiresAt && Date.parse(filter.expiresAt) <= Date.now()) continue;
    if (filter.filterAction === 'hide') out.hide = true;
    else out.warn.push(filter.title);
  }
  return out;
}
