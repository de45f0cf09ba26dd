import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ApiError, type FieldIssue } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import { auditEntryView, findAuditRecord, listAuditLog } from '../../../modules/audit/index.ts';
import { instantOf } from '../../instant.ts';
import { principalOf } from '../../plugins/auth.ts';
import { cursorPage, unknownCursorIssue } from '../../cursor-page.ts';
import type { RouteDeps } from '../../route-deps.ts';
import { AuditEntryListSchema, ListAuditLogQuerySchema } from '../../schemas/audit-log.schema.ts';
import { errorResponses } from '../../schemas/error.schema.ts';
import { LIST_LIMITS } from '../../schemas/payment-list.schema.ts';

export function registerListAuditLog(app: FastifyInstance, deps: RouteDeps): void {
  app.withTypeProvider<TypeBoxTypeProvider>().get(
    '/audit_log',
    {
      schema: {
        operationId: 'listAuditLog',
        tags: ['audit'],
        summary: 'List the audit log',
        description:
          'Who changed what (docs/audit-log.md): one append-only entry per change made with a key, by a person in the dashboard or by the operator, in the environment of the API key and the merchant-wide ones, newest first, one page at a time (the cursor rules of GET /payment). Refusals: 400 `invalid_request` with `unknown_cursor` (a `starting_after` that is not one of the entries this key can see) or `invalid_format` (an instant that is not RFC 3339).',
        querystring: ListAuditLogQuerySchema,
        response: { 200: Type.Ref(AuditEntryListSchema), ...errorResponses },
      },
    },
    async (request, reply) => {
      const principal = principalOf(request);
      const q = request.query;
      const issues: FieldIssue[] = [];
      const from = q.occurred_gte === undefined ? undefined : instantOf(q.occurred_gte, 'query.occurred_gte', issues);
      const to = q.occurred_lte === undefined ? undefined : instantOf(q.occurred_lte, 'query.occurred_lte', issues);
      if (q.starting_after !== undefined) {
        const cursor = isIdOf('auditEntry', q.starting_after)
          ? await findAuditRecord(deps.store, principal.merchantId, q.starting_after)
          : undefined;
        // Another environment's entry is not one this key can see: the same answer as an unknown id.
        if (cursor === undefined || (cursor.environment !== null && cursor.environment !== principal.environment)) {
          issues.push(unknownCursorIssue('audit entries'));
        }
      }
      if (issues.length > 0) throw new ApiError('invalid_request', 'The request has invalid fields.', { details: issues });
      const page = await listAuditLog(deps.store, {
        merchantId: principal.merchantId,
        environment: principal.environment,
        limit: q.limit ?? LIST_LIMITS.defaultLimit,
        ...(q.action === undefined ? {} : { action: q.action }),
        ...(q.actor_id === undefined ? {} : { actorId: q.actor_id }),
        ...(q.object_id === undefined ? {} : { objectId: q.object_id }),
        ...(from === undefined ? {} : { occurredFrom: from }),
        ...(to === undefined ? {} : { occurredTo: to }),
        ...(q.starting_after === undefined ? {} : { startingAfter: q.starting_after }),
      });
      return reply.send(cursorPage(page.records, page.hasMore, auditEntryView));
    },
  );
}
