import type { Environment } from '../../connectors/core/connector.ts';
import type { Queryable } from '../../db/store.ts';
import { newId } from '../../lib/ids.ts';

/**
 * Events are written in the same transaction as the change they describe (the transactional
 * outbox): if the change commits, the event exists; if it rolls back, so does the event.
 */
export interface NewEvent {
  merchantId: string;
  environment: Environment;
  type: string;
  objectType: string;
  objectId: string;
  objectVersion: number;
  apiVersion: string;
  object: unknown;
  previousAttributes: Record<string, unknown>;
  now: Date;
}

export async function insertEvent(q: Queryable, e: NewEvent): Promise<string> {
  const id = newId('event', e.now.getTime());
  const payload = {
    id,
    type: e.type,
    created_at: e.now.toISOString(),
    api_version: e.apiVersion,
    data: { object: e.object, previous_attributes: e.previousAttributes },
  };
  await q.query(
    `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, api_version, payload, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [
      id,
      e.merchantId,
      e.environment,
      e.type,
      e.objectType,
      e.objectId,
      e.objectVersion,
      e.apiVersion,
      JSON.stringify(payload),
      e.now,
    ],
  );
  return id;
}
