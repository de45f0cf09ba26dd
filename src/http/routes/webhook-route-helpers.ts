import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ApiError } from '../../lib/error-catalogue.ts';
import { type IdKind, isIdOf } from '../../lib/ids.ts';
import type { Tenant } from '../../modules/webhooks/endpoint-repo.ts';
import type { Failure } from '../../modules/webhooks/endpoint-service.ts';
import { principalOf } from '../plugins/auth.ts';

/** Shared by the webhook_endpoint, event and callback_secret routes. */
export function tenantOf(request: FastifyRequest): Tenant {
  const p = principalOf(request);
  return { merchantId: p.merchantId, environment: p.environment };
}

export function throwFailure(f: Failure): never {
  throw new ApiError(f.code, f.message, { details: f.details });
}

/** A malformed id cannot exist: answer like an unknown one without asking the database. */
export function requireIdShape(kind: IdKind, id: string, what: string): void {
  if (!isIdOf(kind, id)) throw new ApiError('resource_not_found', `No such ${what}.`);
}

export const IdParams = (description: string) => Type.Object({ id: Type.String({ maxLength: 64, description }) });

/** For POSTs whose body is optional: the one hook, which /openapi.json recognises (openapi-conventions.ts). */
export { emptyBodyAsObject } from '../idempotency-header.ts';
