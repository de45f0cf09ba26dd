import type { FastifyInstance } from 'fastify';
import { AuditEntryListSchema, AuditEntrySchema } from './audit-log.schema.ts';
import { CheckoutListSchema, CheckoutSchema } from './checkout.schema.ts';
import { ErrorBodySchema } from './error.schema.ts';
import { PaymentLinkListSchema, PaymentLinkSchema } from './payment-link.schema.ts';
import { PaymentListSchema } from './payment-list.schema.ts';
import { PaymentMethodListSchema, PaymentMethodSchema } from './payment-method.schema.ts';
import { PaymentSchema } from './payment.schema.ts';
import { ReconciliationLineListSchema, ReconciliationSchema } from './reconciliation.schema.ts';
import { BalanceSchema, RefundSchema } from './refund.schema.ts';
import { SettlementExceptionListSchema, SettlementExceptionSchema } from './settlement-exception.schema.ts';
import { SettlementListSchema, SettlementSchema } from './settlement.schema.ts';
import { WEBHOOK_SCHEMAS } from './webhook.schema.ts';

/** The shared schemas, added before @fastify/swagger reads them: they become the OpenAPI components. */
export function addSharedSchemas(app: FastifyInstance): void {
  for (const schema of [
    ErrorBodySchema,
    PaymentSchema,
    PaymentListSchema,
    PaymentMethodSchema,
    PaymentMethodListSchema,
    RefundSchema,
    BalanceSchema,
    ...WEBHOOK_SCHEMAS,
    SettlementSchema,
    SettlementListSchema,
    SettlementExceptionSchema,
    SettlementExceptionListSchema,
    ReconciliationSchema,
    ReconciliationLineListSchema,
    AuditEntrySchema,
    AuditEntryListSchema,
    CheckoutSchema,
    CheckoutListSchema,
    PaymentLinkSchema,
    PaymentLinkListSchema,
  ]) {
    app.addSchema(schema);
  }
}
