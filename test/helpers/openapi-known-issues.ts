/**
 * Places where the generated OpenAPI description (test/fixtures/mastodon-schemas.json) is known to
 * disagree with Mastodon's documented behaviour. Each fix is applied to the loaded description
 * before validation, with the reason beside it. Keep this list short and honest.
 */
type Spec = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

export interface SchemaFix {
  why: string;
  apply(spec: Spec): void;
}

export const KNOWN_SCHEMA_MISTAKES: SchemaFix[] = [
  {
    why:
      'ScheduledStatus params.application_id is null for a status scheduled without an OAuth application: ' +
      "Mastodon's PostStatusService stores `application&.id`; the description allows only an integer.",
    apply(spec) {
      const scheduled = spec.components.schemas.ScheduledStatus as { properties: { params: { properties: Record<string, { type: unknown }> } } };
      const appId = scheduled.properties.params.properties.application_id;
      if (appId) appId.type = ['integer', 'null'];
    },
  },
  {
    why:
      "The instance contact e-mail is an empty string until the administrator sets one: Mastodon's default " +
      "`site_contact_email` is '' and both instance entities return it as is; the description demands an address.",
    apply(spec) {
      const schemas = spec.components.schemas as Record<string, { properties: Record<string, { properties?: Record<string, unknown> } & Record<string, unknown>> }>;
      const emailOrEmpty = { anyOf: [{ type: 'string', format: 'email' }, { type: 'string', maxLength: 0 }] };
      const v1 = schemas.V1Instance?.properties;
      if (v1) v1.email = { ...emailOrEmpty };
      const contact = schemas.Instance?.properties.contact?.properties;
      if (contact) contact.email = { ...emailOrEmpty };
    },
  },
  {
    why:
      'NotificationGroup.most_recent_notification_id is documented as a String (methods/grouped_notifications.md, ' +
      'and masto types it so); the description says integer because Mastodon serializes its small sequential id ' +
      'as a number. Our ids are 64-bit and would lose precision as JSON numbers, so we follow the documented type.',
    apply(spec) {
      const group = spec.components.schemas.NotificationGroup as { properties: Record<string, { type: unknown }> };
      const id = group.properties.most_recent_notification_id;
      if (id) id.type = 'string';
    },
  },
  {
    why:
      'GET /api/v1/filters answers a list of V1::Filter (its own description says "List of [V1::Filter]", as the ' +
      'filters docs do); the schema was generated as a single V1Filter object.',
    apply(spec) {
      const ok = (spec.paths['/api/v1/filters'] as { get?: { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> } })?.get;
      const json = ok?.responses['200']?.content?.['application/json'];
      if (json) json.schema = { type: 'array', items: { $ref: '#/components/schemas/V1Filter' } };
    },
  },
  {
    why:
      'DELETE /api/v1/media/:id refuses attached media with a plain Error ({"error": …}), rendered by the ' +
      "controller as Mastodon's other media errors are; there is no model validation behind it, so no `details`. " +
      'The description reuses ValidationError, which requires them.',
    apply(spec) {
      const del = (spec.paths['/api/v1/media/{id}'] as { delete?: { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> } })?.delete;
      const json = del?.responses['422']?.content?.['application/json'];
      if (json) json.schema = { $ref: '#/components/schemas/Error' };
    },
  },
  {
    why:
      "PreviewCard author_url, provider_url and embed_url are '' when the page gives none (Mastodon's columns " +
      "default to '', and the PreviewCard docs' own Link example shows \"author_url\": \"\"), and so is an author's " +
      'url in `authors`; the description demands URIs.',
    apply(spec) {
      const schemas = spec.components.schemas as Record<string, { properties: Record<string, unknown> }>;
      const uriOrEmpty = { anyOf: [{ type: 'string', format: 'uri' }, { type: 'string', maxLength: 0 }] };
      const card = schemas.PreviewCard?.properties;
      if (card) for (const key of ['author_url', 'provider_url', 'embed_url']) card[key] = { ...uriOrEmpty };
      const author = schemas.PreviewCardAuthor?.properties;
      if (author) author.url = { ...uriOrEmpty };
    },
  },
  {
    why:
      "The description lacks the v1 notification policy (Mastodon's Api::V1::Notifications::PoliciesController " +
      'routes GET, PATCH and PUT /api/v1/notifications/policy, answering V1::NotificationPolicy, whose entity the ' +
      'description does have), so its answers were checked as a Notification under /api/v1/notifications/{id}; and ' +
      'it lists only GET and PATCH of the v2 policy, though Rails routes the update of a singular resource by PUT too.',
    apply(spec) {
      const answer = (schema: string) => ({ responses: { '200': { content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } } } } });
      spec.paths['/api/v1/notifications/policy'] = { get: answer('V1NotificationPolicy'), patch: answer('V1NotificationPolicy'), put: answer('V1NotificationPolicy') };
      const v2 = spec.paths['/api/v2/notifications/policy'];
      if (v2) v2.put = answer('NotificationPolicy');
    },
  },
  {
    why:
      "Trends::Link is a PreviewCard with its history, so author_url, provider_url and embed_url are '' when the page " +
      "gives none, as for any card: the trends docs' own example answers \"author_url\": \"\", \"provider_url\": \"\" and " +
      '"embed_url": "". The description demands URIs.',
    apply(spec) {
      const link = (spec.components.schemas as Record<string, { properties: Record<string, unknown> }>).TrendsLink?.properties;
      const uriOrEmpty = { anyOf: [{ type: 'string', format: 'uri' }, { type: 'string', maxLength: 0 }] };
      if (link) for (const key of ['author_url', 'provider_url', 'embed_url']) link[key] = { ...uriOrEmpty };
    },
  },
  {
    why:
      'Status.quote is "oneOf" Quote and ShallowQuote, but neither schema requires the attribute that tells them ' +
      'apart, so every Quote ({state, quoted_status}) also passes as a ShallowQuote and oneOf fails. Mastodon always ' +
      'writes both attributes (REST::QuoteSerializer `quoted_status`, REST::ShallowQuoteSerializer `quoted_status_id`, ' +
      'null when not shown; the entity docs list them without "optional"), so each schema requires its own.',
    apply(spec) {
      const schemas = spec.components.schemas as Record<string, { required?: string[] }>;
      if (schemas.Quote) schemas.Quote.required = [...new Set([...(schemas.Quote.required ?? []), 'quoted_status'])];
      if (schemas.ShallowQuote) schemas.ShallowQuote.required = [...new Set([...(schemas.ShallowQuote.required ?? []), 'quoted_status_id'])];
    },
  },
  {
    why:
      "The collections' 422 (CustomError422) nests Mastodon's ValidationErrorFormatter output under `error`, with " +
      '`details` keyed by every attribute that failed (description, language, tag_name…); the description was ' +
      'generated from the docs\' one example and demands exactly a `name` entry.',
    apply(spec) {
      const custom = spec.components.schemas.CustomError422 as { properties: { error: { properties: { details: Record<string, unknown> } } } };
      const details = custom.properties.error.properties.details;
      const item = (details.properties as { name?: unknown } | undefined)?.name;
      if (item) custom.properties.error.properties.details = { type: 'object', additionalProperties: item };
    },
  },
  {
    why:
      "oEmbed's `height` is the consumer's `maxheight` as an integer, or null without one (Mastodon's OEmbedSerializer " +
      'returns `instance_options[:height].presence&.to_i`; oEmbed 1.0 makes width and height integers); the ' +
      'description types it as a string.',
    apply(spec) {
      const oembed = spec.components.schemas.OEmbedResponse as { properties: Record<string, { type: unknown }> };
      const height = oembed.properties.height;
      if (height) height.type = ['integer', 'null'];
    },
  },
  {
    why:
      "ExtendedDescription.updated_at is null until an administrator writes the about page: Mastodon's " +
      'ExtendedDescription.current has no time without its setting and the serializer answers `updated_at&.iso8601`; ' +
      'the description only allows a date-time.',
    apply(spec) {
      const about = spec.components.schemas.ExtendedDescription as { properties: Record<string, { type: unknown }> };
      const updatedAt = about.properties.updated_at;
      if (updatedAt) updatedAt.type = ['string', 'null'];
    },
  },
  {
    why:
      'NotificationGroup.type takes every Notification type: the grouped methods list the same notifications as v1, ' +
      "grouped or not. Its enum (and the group docs' list) stop at Mastodon 4.5 and lack the collections' " +
      '`added_to_collection` and `collection_update` of 4.6, which NotificationTypeEnum has.',
    apply(spec) {
      const schemas = spec.components.schemas as Record<string, { enum?: string[] }>;
      const group = schemas.NotificationGroupTypeEnum;
      const all = schemas.NotificationTypeEnum?.enum;
      if (group?.enum && all) group.enum = [...new Set([...group.enum, ...all])];
    },
  },
];
