// What both storage backends share: how big a stored message counts for the quota, how rows
// become the interface's shapes, the shedding plan, and the check of signals read back from a
// database.
import { z } from 'zod';
import { PRIORITIES } from '../protocol.js';
import type { RelaySignal, Tenant } from './types.js';

/** Thrown by `accept` and friends for a tenant id the store does not know (removed meanwhile). */
export class UnknownTenantError extends Error {
  constructor(tenantId: string) {
    super(`no tenant with id ${tenantId}`);
    this.name = 'UnknownTenantError';
  }
}

/** Thrown when a store was made by a newer relay than this one (its schema is ahead). */
export class SchemaTooNewError extends Error {
  constructor(found: number, known: number) {
    super(`the relay's database has schema version ${found}, newer than ${known}, the latest this relay knows: upgrade the relay`);
    this.name = 'SchemaTooNewError';
  }
}

/**
 * How many bytes a stored inbound message counts for against the quota and in the backlog: its
 * body plus its path and header names and values (UTF-8). The headers of a signed delivery are
 * often as large as a Like's body, so counting only bodies would let the disk fill at several
 * times the quota.
 */
export function inboundBytes(message: { path: string; headers: readonly (readonly [string, string])[]; body: Uint8Array }): number {
  let bytes = message.body.length + Buffer.byteLength(message.path);
  for (const [name, value] of message.headers) bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  return bytes;
}

/** Bytes a cached document counts for: its body. */
export function cacheBytesOf(body: Uint8Array): number {
  return body.length;
}

/** A stored message that may be shed, as the planner sees it. */
export interface ShedCandidate {
  seq: number;
  priority: number;
  bytes: number;
  activityType: string;
}

/**
 * The highest priority of stored messages a new one of `priority` may shed: the same or lower,
 * never PRIORITIES.keep.
 */
export function shedCeiling(priority: number): number {
  return Math.min(priority, PRIORITIES.keep - 1);
}

/**
 * Collects victims for a message that needs `need` bytes freed. Candidates arrive in shedding
 * order (lowest priority first, then oldest) in batches; `add` says whether enough is collected.
 */
export class ShedPlan {
  readonly victims: ShedCandidate[] = [];
  freed = 0;

  constructor(readonly need: number) {}

  /** Takes candidates until enough is freed; true once it is. */
  add(batch: readonly ShedCandidate[]): boolean {
    for (const candidate of batch) {
      if (this.freed >= this.need) return true;
      this.victims.push(candidate);
      this.freed += candidate.bytes;
    }
    return this.freed >= this.need;
  }

  /** Victims counted by activity type. */
  counts(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const v of this.victims) counts.set(v.activityType, (counts.get(v.activityType) ?? 0) + 1);
    return counts;
  }
}

/** Candidates are read this many at a time (the plan usually needs one or two). */
export const SHED_BATCH = 128;

/** Columns of a tenant row, as both backends select them (PostgreSQL hands BIGINT over as text). */
export interface TenantRow {
  id: string;
  host: string;
  origin: string;
  public_key: string | null;
  enrolled_at: number | string | null;
  created_at: number | string;
  quota_bytes: number | string;
  clients: number | boolean;
}

/** The column list that `toTenant` reads. */
export const TENANT_COLUMNS = 'id, host, origin, public_key, enrolled_at, created_at, quota_bytes, clients';

/** A tenant row as the interface's `Tenant`. */
export function toTenant(row: TenantRow): Tenant {
  return {
    id: row.id,
    host: row.host,
    origin: row.origin,
    publicKey: row.public_key,
    enrolledAt: row.enrolled_at === null ? null : Number(row.enrolled_at),
    createdAt: Number(row.created_at),
    quotaBytes: Number(row.quota_bytes),
    clients: row.clients === true || row.clients === 1,
  };
}

/** Header pairs as stored (JSON text), checked on the way back. */
export function parseHeaders(text: string): [string, string][] {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value)) throw new Error('stored headers are not a list');
  return value.map((pair: unknown) => {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') {
      throw new Error('stored header is not a name/value pair');
    }
    return [pair[0], pair[1]];
  });
}

const signalSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('inbound'), tenantId: z.string() }),
  z.object({ kind: z.literal('tunnel'), tenantId: z.string(), nodeId: z.string() }),
]);

/** A signal read back from the database (another process wrote it): null when malformed. */
export function parseSignal(payload: string): RelaySignal | null {
  let json: unknown;
  try {
    json = JSON.parse(payload);
  } catch {
    return null;
  }
  const parsed = signalSchema.safeParse(json);
  return parsed.success ? parsed.data : null;
}

/** Hands a signal to listeners on a later turn, so a throwing listener cannot break the sender. */
export function deliverSignal(listeners: Iterable<(signal: RelaySignal) => void>, signal: RelaySignal): void {
  for (const listener of [...listeners]) setImmediate(() => listener(signal));
}
