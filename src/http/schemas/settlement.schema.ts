import { Type } from '@sinclair/typebox';
import { PageLimit } from './payment-list.schema.ts';
import { Nullable, Timestamp } from './schema-helpers.ts';

const Major = (description: string) => Type.Number({ description: `${description}, exact, in major units.` });

const SettlementFields = {
  id: Type.String({ description: '`stl_…`' }),
  object: Type.Literal('settlement'),
  environment: Type.String(),
  connector: Type.String({ description: 'The connector whose provider paid this batch out.' }),
  currency: Type.String(),
  gross: Major('What the provider collected for these payments'),
  fee: Major("The provider's fees"),
  net: Major('gross − fee: what the provider paid out'),
  payment_count: Type.Integer({ minimum: 1 }),
  period_start: Timestamp('Start of the period the batch covers: when the earliest of its payments was paid (`succeeded_at`).'),
  period_end: Timestamp('End of the period the batch covers: the latest provider settlement time of its payments.'),
  created_at: Timestamp('When Tributary recorded the batch.'),
};

export const SettlementPaymentSchema = Type.Object(
  {
    payment_id: Type.String(),
    reference_no: Type.String(),
    provider_reference: Type.String(),
    gross: Major('What the provider collected for this payment'),
    fee: Major("The provider's fee on it"),
    net: Major('gross − fee'),
    settled_at: Timestamp('When the provider settled it.'),
  },
  { additionalProperties: false },
);

/** One batch with its payments (GET /settlement/{id}). */
export const SettlementSchema = Type.Object(
  { ...SettlementFields, payments: Type.Optional(Type.Array(SettlementPaymentSchema)) },
  { $id: 'Settlement', additionalProperties: false },
);

export const ListSettlementsQuerySchema = Type.Object(
  {
    limit: PageLimit(),
    starting_after: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'A settlement id (`next_cursor` of the previous page): the page starts right after it. An id that is not one of your settlements in this environment is a 400 `unknown_cursor`.',
      }),
    ),
    connector: Type.Optional(Type.String({ maxLength: 64, description: 'Only batches of this connector.' })),
  },
  { additionalProperties: false },
);

export const SettlementListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(SettlementSchema), {
      description: 'Newest first; each without `payments` (GET /settlement/{id} lists them).',
    }),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String({ description: 'Pass as `starting_after` to get the next page; null on the last page.' })),
  },
  { $id: 'SettlementList', additionalProperties: false },
);
