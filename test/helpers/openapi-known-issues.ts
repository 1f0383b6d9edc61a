/**
 * Places where the generated OpenAPI description (../shared/mastodon/openapi.json) is known to
 * disagree with Mastodon's documented behaviour. Each fix is applied to the loaded description
 * before validation, with the reason beside it. Keep this list short and honest.
 */
type Spec = { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } };

export interface SchemaFix {
  why: string;
  apply(spec: Spec): void;
}

export const KNOWN_SCHEMA_MISTAKES: SchemaFix[] = [];
