import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Store } from '../../../db/store.ts';
import { ApiError } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import {
  findReconciliation,
  type LinePageQuery,
  listReconciliationLines,
  type Reconciliation,
} from '../../../modules/reconciliation/reconciliation-repo.ts';
import { principalOf } from '../../plugins/auth.ts';

/** What the reconciliation routes with an id share: the caller's reconciliation (else 404) and its lines. */
export const ReconciliationParams = Type.Object({ id: Type.String({ maxLength: 64, description: '`rec_…`' }) });

export async function loadReconciliation(store: Store, request: FastifyRequest, id: string): Promise<Reconciliation> {
  const principal = principalOf(request);
  const found = isIdOf('reconciliation', id)
    ? await findReconciliation(store, principal.merchantId, principal.environment, id)
    : undefined;
  if (found === undefined) throw new ApiError('resource_not_found', 'No such reconciliation.');
  return found;
}

export async function linesOf(store: Store, request: FastifyRequest, reconciliation: Reconciliation, page: LinePageQuery) {
  const principal = principalOf(request);
  return listReconciliationLines(store, principal.merchantId, principal.environment, reconciliation.id, page);
}
