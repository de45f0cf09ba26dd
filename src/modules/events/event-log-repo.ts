import type { Queryable } from '../../db/store.ts';
import type { StoredEvent } from './event-view.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Reading the event log (GET /event…). Scoped by merchant and environment like every finder:
 * another tenant's event id finds nothing.
 */
export interface EventRecord {
  id: string;
  type: string;
  objectType: string;
  objectId: string;
  objectVersion: number;
  createdAt: Date;
  payload: StoredEvent;
}

interface EventRow {
  id: string;
  type: string;
  object_type: string;
  object_id: string;
  object_version: number;
  created_at: Date;
  payload: StoredEvent;
  [key: string]: unknown;
}

const COLUMNS = 'id, type, object_type, object_id, object_version, created_at, payload';

const fromRow = (r: EventRow): EventRecord => ({
  id: r.id,
  type: r.type,
  objectType: r.object_type,
  objectId: r.object_id,
  objectVersion: r.object_version,
  createdAt: r.created_at,
  payload: r.payload,
});

export async function findEvent(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<EventRecord | undefined> {
  const rows = await q.query<EventRow>(`SELECT ${COLUMNS} FROM events WHERE id = $1 AND merchant_id = $2 AND environment = $3`, [
    id,
    merchantId,
    environment,
  ]);
  return rows[0] === undefined ? undefined : fromRow(rows[0]);
}

export interface EventFilter {
  /** Exact type, or a `prefix.*` wildcard. */
  type?: string;
  objectId?: string;
  /** Newest first; the page starts after this event. */
  after?: { createdAt: Date; id: string };
  limit: number;
}

export async function listEvents(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  f: EventFilter,
): Promise<EventRecord[]> {
  const params: unknown[] = [merchantId, environment];
  const where = ['merchant_id = $1', 'environment = $2'];
  if (f.type !== undefined) {
    if (f.type.endsWith('.*')) {
      params.push(`${f.type.slice(0, -1).replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
      where.push(`type LIKE $${params.length}`);
    } else {
      params.push(f.type);
      where.push(`type = $${params.length}`);
    }
  }
  if (f.objectId !== undefined) {
    params.push(f.objectId);
    where.push(`object_id = $${params.length}`);
  }
  if (f.after !== undefined) {
    params.push(f.after.createdAt, f.after.id);
    where.push(`(created_at, id) < ($${params.length - 1}, $${params.length})`);
  }
  params.push(f.limit);
  const rows = await q.query<EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
    params,
  );
  return rows.map(fromRow);
}

/** The events of some objects (a payment and its refunds), oldest first; at most `limit`. */
export async function listEventsOfObjects(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  objectIds: readonly string[],
  limit: number,
): Promise<EventRecord[]> {
  if (objectIds.length === 0) return [];
  const rows = await q.query<EventRow>(
    `SELECT ${COLUMNS} FROM events WHERE object_id = ANY($1::text[]) AND merchant_id = $2 AND environment = $3
     ORDER BY created_at, id LIMIT $4`,
    [objectIds, merchantId, environment, limit],
  );
  return rows.map(fromRow);
}
