import { Type } from '@sinclair/typebox';
import { PAYMENT_STATUSES } from '../../modules/payments/payment-states.ts';
import { CREATE_LIMITS, PaymentSchema } from './payment.schema.ts';
import { Nullable, StringEnum } from './schema-helpers.ts';

/** Page size bounds of GET /payment. */
export const LIST_LIMITS = { defaultLimit: 10, maxLimit: 100 } as const;

/** The `limit` query parameter of every cursor-paginated list (decision 0010). */
export const PageLimit = () =>
  Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: LIST_LIMITS.maxLimit,
      default: LIST_LIMITS.defaultLimit,
      description: `Page size, 1-${LIST_LIMITS.maxLimit} (default ${LIST_LIMITS.defaultLimit}).`,
    }),
  );

export const ListPaymentsQuerySchema = Type.Object(
  {
    limit: PageLimit(),
    starting_after: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'A payment id (`next_cursor` of the previous page): the page starts right after it. An id that is not one of your payments in this environment is a 400 `unknown_cursor`.',
      }),
    ),
    status: Type.Optional(StringEnum(PAYMENT_STATUSES, { description: 'Only payments in this status.' })),
    reference_no: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: CREATE_LIMITS.referenceNoMaxLength,
        description: 'Only payments with this reference_no (exact match).',
      }),
    ),
    channel: Type.Optional(
      StringEnum(['bank', 'ewallet', 'counter'] as const, { description: 'Only payments on this (resolved) channel.' }),
    ),
    created_gte: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Created at or after this instant (RFC 3339, e.g. `2026-01-31T00:00:00Z`; encode `+` as `%2B`).',
      }),
    ),
    created_lte: Type.Optional(
      Type.String({ format: 'date-time', description: 'Created at or before this instant (RFC 3339).' }),
    ),
  },
  { additionalProperties: false },
);

export const PaymentListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(PaymentSchema), { description: 'Newest first (`created_at` descending, then `id` descending).' }),
    has_more: Type.Boolean({ description: 'Whether another page follows.' }),
    next_cursor: Nullable(Type.String({ description: 'Pass as `starting_after` to get the next page; null on the last page.' })),
  },
  { $id: 'PaymentList', additionalProperties: false },
);
