import { Type } from '@sinclair/typebox';
import { EXCEPTION_KINDS, EXCEPTION_STATUSES } from '../../modules/settlement/settlement-exception-repo.ts';
import { PageLimit } from './payment-list.schema.ts';
import { Nullable, StringEnum, Timestamp } from './schema-helpers.ts';

export const SettlementExceptionSchema = Type.Object(
  {
    id: Type.String({ description: '`stx_…`' }),
    object: Type.Literal('settlement_exception'),
    connector: Type.String(),
    kind: StringEnum(EXCEPTION_KINDS, { description: 'Why the line was not applied (docs/money.md "Settlement").' }),
    status: StringEnum(EXCEPTION_STATUSES, { description: '`open` until an operator resolves it; `resolved` is final.' }),
    payment_id: Nullable(Type.String({ description: 'The payment the line names, when it is one of yours.' })),
    provider_reference: Type.String({ description: "The provider's charge reference on the line." }),
    currency: Type.String({ description: 'The currency the provider reported.' }),
    gross: Type.Number({ description: 'Gross as the provider reported it, exact, in major units.' }),
    fee: Type.Number({ description: 'Fee as the provider reported it, exact, in major units.' }),
    settled_at: Timestamp("The provider's settlement time on the line."),
    detail: Type.String({ description: 'One sentence on what did not agree.' }),
    resolved_at: Nullable(Timestamp('When an operator resolved it.')),
    resolution: Nullable(Type.String({ description: "The operator's note on what was done." })),
    created_at: Timestamp('When the ingestion recorded it.'),
  },
  { $id: 'SettlementException', additionalProperties: false },
);

export const ListSettlementExceptionsQuerySchema = Type.Object(
  {
    limit: PageLimit(),
    starting_after: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'A settlement exception id (`next_cursor` of the previous page): the page starts right after it. An id that is not one of your settlement exceptions in this environment is a 400 `unknown_cursor`.',
      }),
    ),
    status: Type.Optional(StringEnum(EXCEPTION_STATUSES, { description: 'Only open or only resolved exceptions.' })),
    kind: Type.Optional(StringEnum(EXCEPTION_KINDS, { description: 'Only this kind.' })),
    connector: Type.Optional(Type.String({ maxLength: 64, description: 'Only this connector.' })),
  },
  { additionalProperties: false },
);

export const SettlementExceptionListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(SettlementExceptionSchema), { description: 'Newest first.' }),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String({ description: 'Pass as `starting_after` to get the next page; null on the last page.' })),
  },
  { $id: 'SettlementExceptionList', additionalProperties: false },
);
