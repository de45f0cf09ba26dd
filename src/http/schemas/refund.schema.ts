import { Type } from '@sinclair/typebox';
import { REFUND_REASONS, REFUND_SOURCES, REFUND_STATUSES } from '../../modules/refunds/refund-types.ts';
import { MAX_AMOUNT_MAJOR } from './payment.schema.ts';
import { Nullable, StringEnum, Timestamp } from './schema-helpers.ts';

export const RefundBodySchema = Type.Object(
  {
    amount: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: MAX_AMOUNT_MAJOR,
        description:
          'What to refund, in major units as a JSON number, parsed exactly like the create amount: at most the currency’s minor-unit digits (`amount_too_precise`) and 15 significant digits in minor units (`amount_too_large`). Absent: everything of the payment that is still refundable.',
        examples: [50000],
      }),
    ),
    reason: Type.Optional(Nullable(StringEnum(REFUND_REASONS, { description: 'Why the money goes back (stored and shown).' }))),
    source: Type.Optional(
      StringEnum(REFUND_SOURCES, {
        description:
          'What to give back: `payment` (money the payment captured; the default for a `succeeded` payment) or `late_payment` (a late payment the merchant did not get, `late_payment.resolution` `refund_required`; the default for any other payment).',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RefundSchema = Type.Object(
  {
    id: Type.String({ description: '`ref_…`' }),
    object: Type.Literal('refund'),
    environment: StringEnum(['sandbox', 'production'] as const),
    payment_id: Type.String({ description: 'The refunded payment, `pay_…`.' }),
    amount: Type.Number({ description: 'Major units.' }),
    currency: Type.String(),
    status: StringEnum(REFUND_STATUSES, {
      description: '`pending` until the provider answers finally; then `succeeded` or `failed` (never changes again).',
    }),
    source: StringEnum(REFUND_SOURCES, {
      description: '`payment`: money the payment captured; `late_payment`: a late payment given back to the payer.',
    }),
    reason: Nullable(StringEnum(REFUND_REASONS)),
    failure_code: Nullable(Type.String({ description: "The provider's reason when `failed`." })),
    failure_message: Nullable(Type.String()),
    version: Type.Integer({ minimum: 1, description: 'Grows with every change; events carry it.' }),
    created_at: Timestamp('When the refund was requested.'),
    updated_at: Timestamp('Last change.'),
    completed_at: Nullable(Timestamp('When it became succeeded or failed.')),
  },
  {
    $id: 'Refund',
    additionalProperties: false,
    description: 'A refund of all or part of a succeeded payment, or of a late payment owed back to its payer.',
  },
);

const BalanceLineSchema = Type.Object(
  {
    currency: Type.String(),
    pending: Type.Number({ description: 'Owed to you from paid payments not settled yet (major units).' }),
    available: Type.Number({ description: 'Owed to you from settled payments (major units).' }),
    refunds_in_flight: Type.Number({ description: 'Held for refunds the provider has not finished (major units).' }),
    owed_to_payers: Type.Number({
      description: 'Late payments you did not get, held to be refunded to their payers (major units; not yours).',
    }),
  },
  { additionalProperties: false },
);

export const BalanceSchema = Type.Object(
  {
    object: Type.Literal('balance'),
    environment: StringEnum(['sandbox', 'production'] as const),
    balances: Type.Array(BalanceLineSchema, { description: 'One line per currency you have had money in.' }),
    verification: Nullable(
      Type.Object(
        {
          status: StringEnum(['ok', 'mismatch'] as const),
          checked_at: Timestamp('When the ledger was re-derived.'),
          violations: Type.Array(Type.Object({ kind: Type.String(), detail: Type.String() }, { additionalProperties: false })),
        },
        {
          additionalProperties: false,
          description: 'Only with `verify=true`: the balances re-derived from every posting and compared with the cached ones.',
        },
      ),
    ),
  },
  { $id: 'Balance', additionalProperties: false },
);
