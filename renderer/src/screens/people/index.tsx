import type { JSX } from 'preact';
import { FeaturedTags } from './featured';
import { FollowRequests } from './requests';
import { FollowedTags } from './tags';
import { Suggestions } from './suggestions';
import './people.css';

const TABS = [
  { id: 'suggestions', label: 'Suggestions' },
  { id: 'requests', label: 'Follow requests' },
  { id: 'hashtags', label: 'Followed hashtags' },
  { id: 'featured', label: 'Featured hashtags' },
] as const;

/**
 * People at `/people/:tab?`: follow suggestions (dismissable), follow requests to accept or
 * reject, the hashtags you follow, and the hashtags featured on your profile.
 */
export function People(props: { tab?: string }): JSX.Element {
  const tab = TABS.find((t) => t.id === props.tab)?.id ?? 'suggestions';
  return (
    <section aria-labelledby="screen-title">
      <h1 id="screen-title">People</h1>
      <nav aria-label="People sections" class="tabs">
        <ul>
          {TABS.map((t) => (
            <li key={t.id}>
              <a href={t.id === 'suggestions' ? '/people' : `/people/${t.id}`} aria-current={tab === t.id ? 'page' : undefined}>
                {t.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {tab === 'requests' ? <FollowRequests /> : tab === 'hashtags' ? <FollowedTags /> : tab === 'featured' ? <FeaturedTags /> : <Suggestions />}
    </section>
  );
}
