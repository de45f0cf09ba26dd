import { Type } from '@sinclair/typebox';
import { CHANNELS } from '../../kernel/index.ts';
import { LINK_CHECKOUT_EXPIRES_IN } from '../../modules/payment-links/index.ts';
import { CreatePaymentBodySchema, CREATE_LIMITS } from './payment.schema.ts';
import { Nullable, StringEnum, Timestamp } from './schema-helpers.ts';

const UrlField = (description: string) =>
  Type.Optional(Nullable(Type.String({ maxLength: CREATE_LIMITS.callbackUrlMaxLength, format: 'uri', description })));

const payment = CreatePaymentBodySchema.properties;

/** Money in a link body: a JSON number in major units, read from its exact text like `amount` of a payment. */
const Amount = (description: string) =>
  Type.Optional(
    Type.Number({ exclusiveMinimum: 0, description: `${description} Major units, as a JSON number (not a string).` }),
  );

/** The ceiling of `max_uses` (the column is an integer; no link needs more). */
export const PAYMENT_LINK_MAX_USES = 1_000_000;

export const CreatePaymentLinkBodySchema = Type.Object(
  {
    amount: Amount('A fixed amount. Send either `amount`, or `amount_min` and `amount_max` (the payer enters the amount).'),
    amount_min: Amount('The least a payer may enter (with `amount_max`, instead of `amount`).'),
    amount_max: Amount('The most a payer may enter (with `amount_min`, instead of `amount`).'),
    currency: payment.currency,
    description: payment.description,
    channels: Type.Optional(
      Nullable(
        Type.Array(StringEnum(CHANNELS), {
          minItems: 1,
          uniqueItems: true,
          description:
            "The channels each visit's checkout offers, in this order. Absent: every channel that can serve the amount at the visit.",
        }),
      ),
    ),
    success_url: UrlField('Where the hosted page sends the payer after a successful payment.'),
    cancel_url: UrlField('Where the hosted page sends a payer who gives up.'),
    max_uses: Type.Optional(
      Nullable(
        Type.Integer({
          minimum: 1,
          maximum: PAYMENT_LINK_MAX_USES,
          description:
            'At most this many payments through the link. A visit holds a use while its checkout is open; an expired checkout frees it. Absent: unlimited.',
        }),
      ),
    ),
    expires_at: Type.Optional(
      Nullable(Timestamp('After this instant the link takes no more visits (RFC 3339, in the future). Absent: never.')),
    ),
    checkout_expires_in: Type.Optional(
      Type.Integer({
        minimum: LINK_CHECKOUT_EXPIRES_IN.minSeconds,
        maximum: LINK_CHECKOUT_EXPIRES_IN.maxSeconds,
        description: `Seconds each visit's checkout stays open (default ${LINK_CHECKOUT_EXPIRES_IN.defaultSeconds}).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const StartLinkCheckoutBodySchema = Type.Object(
  {
    amount: Amount("The amount the payer chose, within the link's bounds; only for a link without a fixed amount."),
  },
  { additionalProperties: false },
);

const Money = (description: string) => Nullable(Type.Number({ description: `${description} Major units.` }));

export const PaymentLinkSchema = Type.Object(
  {
    id: Type.String({ description: '`plink_…`' }),
    object: Type.Literal('payment_link'),
    status: StringEnum(['active', 'inactive', 'expired'] as const, {
      description: '`inactive`: deactivated (final); `expired`: past `expires_at`. See docs/checkout.md, section 8.',
    }),
    url: Type.String({ description: 'The hosted link page for payers (`/pay/plink_…`).' }),
    amount: Money('The fixed amount, or null when the payer enters it.'),
    amount_min: Money('The least a payer may enter, or null for a fixed amount.'),
    amount_max: Money('The most a payer may enter, or null for a fixed amount.'),
    currency: Type.String(),
    description: Nullable(Type.String()),
    channels: Nullable(Type.Array(StringEnum(CHANNELS), { description: 'Null: every channel that can serve the amount.' })),
    success_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    max_uses: Nullable(Type.Integer({ description: 'Null: unlimited.' })),
    remaining_uses: Nullable(
      Type.Integer({ description: 'Uses not held by a completed or open checkout now; null when unlimited.' }),
    ),
    expires_at: Nullable(Timestamp('When the link stops taking visits; null: never.')),
    checkout_expires_in: Type.Integer({ description: "Seconds each visit's checkout stays open." }),
    checkouts: Type.Object(
      { open: Type.Integer(), completed: Type.Integer(), expired: Type.Integer() },
      { additionalProperties: false, description: "The link's checkouts by status." },
    ),
    totals: Type.Object(
      {
        collected: Type.Number({ description: "The sum of the completed checkouts' amounts, in major units." }),
        completed_count: Type.Integer(),
      },
      { additionalProperties: false },
    ),
    version: Type.Integer(),
    created_at: Timestamp('When it was created.'),
    updated_at: Timestamp('When it last changed.'),
    deactivated_at: Nullable(Timestamp('When it was deactivated.')),
  },
  { $id: 'PaymentLink', additionalProperties: false },
);

export const PaymentLinkListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(PaymentLinkSchema)),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { $id: 'PaymentLinkList', additionalProperties: false },
);
