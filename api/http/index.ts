import type { Routes } from './routes.js';

/**
 * Every area's route table, in the order they are mounted. Each area module exports
 * `register(routes)`; add new areas here.
 */
type Register = (routes: Routes) => void;

const areas: Promise<{ register: Register }>[] = [
  import('./health.js'),
  import('./oauth/index.js'),
  import('./v1/apps.js'),
  import('./setup.js'),
  import('./v1/instance.js'),
  import('./v2/instance.js'),
  import('./v1/custom-emojis.js'),
  import('./wellknown/nodeinfo.js'),
  import('./static-defaults.js'),
  import('./v1/preferences.js'),
  import('./v1/statuses.js'),
  import('./v1/status-card.js'),
  import('./v1/media.js'),
  import('./v1/profile-images.js'),
  import('./media-files.js'),
  import('./v1/media-proxy.js'),
  import('./v1/status-actions.js'),
  import('./v1/quotes.js'),
  import('./v1/polls.js'),
  import('./v1/scheduled-statuses.js'),
  import('./v1/follows.js'),
  import('./v1/blocks.js'),
  import('./v1/follow-requests.js'),
  import('./v1/endorsements.js'),
  import('./v1/notification-requests.js'), // before v1/notifications.js, whose `:id` routes would shadow its paths
  import('./v2/notification-policy.js'), // before v2/notifications.js, whose `:group_key` would shadow `policy`
  import('./v1/notifications.js'),
  import('./v2/notifications.js'),
  import('./v1/markers.js'),
  import('./v1/push.js'),
  import('./v1/timelines.js'),
  import('./v1/favourites.js'),
  import('./v1/conversations.js'),
  import('./v2/search.js'),
  import('./v1/lists.js'),
  import('./v1/filters.js'),
  import('./v2/filters.js'),
  import('./v1/suggestions.js'),
  import('./v1/featured-tags.js'),
  import('./v1/tags.js'),
  import('./v1/reports.js'),
  import('./v1/account-search.js'),
  import('./v1/directory.js'),
  import('./v1/pleroma-aliases.js'),
  import('./v1/hearth-federation.js'),
  import('./v1/hearth-relay.js'),
  import('./v1/trends.js'),
  import('./v1/profile.js'),
  import('./v1/collections.js'),
  import('./v1/annual-reports.js'),
  import('./v1/misc-methods.js'),
  import('./v1/announcements.js'),
  import('./v1/admin-announcements.js'),
  import('./admin/accounts.js'),
  import('./admin/roles.js'),
  import('./admin/trends.js'),
  import('./admin/measures.js'),
  import('./admin/dimensions.js'),
  import('./admin/retention.js'),
  import('./admin/webhooks.js'),
  import('./v1/hearth-mail.js'),
  import('./v1/hearth-imports.js'),
  import('./v1/hearth-authorized-apps.js'),
  import('./v1/hearth-instance-settings.js'),
  import('./v1/hearth-exports.js'),
  import('./v1/hearth-setup.js'),
  import('./oauth/mail-links.js'),
  import('./admin/reports.js'),
  import('./admin/domain-blocks.js'),
  import('./admin/domain-allows.js'),
  import('./admin/email-domain-blocks.js'),
  import('./admin/canonical-email-blocks.js'),
  import('./admin/ip-blocks.js'),
  // Keep v1/accounts.js LAST: its `/api/v1/accounts/:id` would shadow literal paths of other areas.
  import('./v1/accounts.js'),
];

/** Registers all areas' routes on one route table. */
export async function registerAll(routes: Routes): Promise<void> {
  for (const area of await Promise.all(areas)) area.register(routes);
}
