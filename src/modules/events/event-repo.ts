import { guardOf, type Statement } from '../../db/statement.ts';
import type { Queryable } from '../../db/store.ts';
import { newId } from '../../lib/ids.ts';
import type { Environment } from '../../kernel/index.ts';

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

/**
 * The insert of one event (id generated here). An `INSERT … SELECT` with explicit casts, so that a
 * combined statement can make it conditional with `guard` (parameters in a SELECT list get no type
 * from the target columns).
 */
export function insertEventStatement(e: NewEvent, guard?: string): { id: string; statement: Statement } {
  const id = newId('event', e.now.getTime());
  const payload = {
    id,
    type: e.type,
    created_at: e.now.toISOString(),
    api_version: e.apiVersion,
    data: { object: e.object, previous_attributes: e.previousAttributes },
  };
  return {
    id,
    statement: {
      text: `INSERT INTO events (id, merchant_id, environment, type, object_type, object_id, object_version, api_version, payload, created_at)
     SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::integer, $8::text, $9::jsonb, $10::timestamptz
     WHERE ${guardOf(guard)}`,
      params: [
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
    },
  };
}

export async function insertEvent(q: Queryable, e: NewEvent): Promise<string> {
  const { id, statement } = insertEventStatement(e);
  await q.query(statement.text, statement.params);
  return id;
}
