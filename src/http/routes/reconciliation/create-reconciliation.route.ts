import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError, type FieldIssue } from '../../../lib/error-catalogue.ts';
import { createReconciliation } from '../../../modules/reconciliation/reconcile.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { idempotencyKeyOf } from '../../idempotency-header.ts';
import { instantOf } from '../../instant.ts';
import { sendOperationResult } from '../../operation-reply.ts';
import { principalOf } from '../../plugins/auth.ts';
import { IdempotencyKeyHeadersSchema } from '../../idempotency-header.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { CreateReconciliationBodySchema, ReconciliationSchema } from '../../schemas/reconciliation.schema.ts';

export function registerCreateReconciliation(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().post(
    '/reconciliation/create',
    {
      schema: {
        operationId: 'createReconciliation',
        tags: ['settlement'],
        summary: "Reconcile a provider's settlement report",
        description:
          "Fetches the connector's settlement report for [from, to), keeps the lines that are yours in this environment, and compares them with the payments Tributary recorded as settled: each line is `matched` or a discrepancy (`missing_in_ours`, `missing_in_report`, `amount_mismatch`, `currency_mismatch`, `duplicate`, `unknown_reference`, `late`; docs/money.md). Emits `reconciliation.completed`, and `reconciliation.discrepancy` when any line differs. 201 for a new reconciliation; the same connector, window and inputs (report lines and our records) answer the existing one with 200 and change nothing. Send an `Idempotency-Key` to make retries safe.",
        headers: IdempotencyKeyHeadersSchema,
        body: CreateReconciliationBodySchema,
        response: { 200: Type.Ref(ReconciliationSchema), 201: Type.Ref(ReconciliationSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const idempotencyKey = idempotencyKeyOf(request);
      const issues: FieldIssue[] = [];
      const from = instantOf(request.body.from, 'from', issues);
      const to = instantOf(request.body.to, 'to', issues);
      if (from === undefined || to === undefined)
        throw new ApiError('invalid_request', 'The request has invalid fields.', { details: issues });
      const result = await createReconciliation(
        deps.reconcile,
        principal,
        { connector: request.body.connector, from, to },
        idempotencyKey,
      );
      return sendOperationResult(reply, result);
    },
  );
}
