import { Type } from '@sinclair/typebox';
import { CHANNELS } from '../../kernel/index.ts';
import { CHECKOUT_EXPIRES_IN } from '../../modules/checkouts/checkout-types.ts';
import { CreatePaymentBodySchema, CREATE_LIMITS, PaymentSchema } from './payment.schema.ts';
import { Nullable, StringEnum, Timestamp } from './schema-helpers.ts';

const UrlField = (description: string) =>
  Type.Optional(Nullable(Type.String({ maxLength: CREATE_LIMITS.callbackUrlMaxLength, format: 'uri', description })));

const payment = CreatePaymentBodySchema.properties;

export const CreateCheckoutBodySchema = Type.Object(
  {
    amount: payment.amount,
    currency: payment.currency,
    reference_no: payment.reference_no,
    description: payment.description,
    email: payment.email,
    metadata: payment.metadata,
    callback_url: payment.callback_url,
    channels: Type.Optional(
      Nullable(
        Type.Array(StringEnum(CHANNELS), {
          minItems: 1,
          uniqueItems: true,
          description: 'The channels the payer may choose among, in this order. Absent: every channel that can serve the amount.',
        }),
      ),
    ),
    success_url: UrlField('Where the hosted page sends the payer after a successful payment.'),
    cancel_url: UrlField('Where the hosted page sends a payer who gives up.'),
    expires_in: Type.Optional(
      Type.Integer({
        minimum: CHECKOUT_EXPIRES_IN.minSeconds,
        maximum: CHECKOUT_EXPIRES_IN.maxSeconds,
        description: `Seconds until the checkout expires (default ${CHECKOUT_EXPIRES_IN.defaultSeconds}).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const SelectCheckoutBodySchema = Type.Object(
  {
    client_secret: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The checkout's client_secret (from its create answer).",
    }),
    channel: StringEnum(CHANNELS, { description: "One of the checkout's `channels`." }),
    instrument: Type.Optional(
      Nullable(
        Type.String({
          minLength: 1,
          maxLength: 40,
          description: 'A bank, wallet or outlet code; routing picks one when absent.',
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

export const CheckoutSchema = Type.Object(
  {
    id: Type.String({ description: '`cs_…`' }),
    object: Type.Literal('checkout'),
    status: StringEnum(['open', 'completed', 'expired'] as const, { description: 'See docs/checkout.md for the state machine.' }),
    url: Type.String({
      description:
        'The hosted checkout page for the payer (`/pay/cs_…`). Not served yet (a 404 page until it is, docs/checkout.md): select from your own UI meanwhile.',
    }),
    amount: Type.Number({ description: 'Major units.' }),
    currency: Type.String(),
    reference_no: Type.String(),
    description: Nullable(Type.String()),
    email: Nullable(Type.String()),
    metadata: Type.Record(Type.String(), Type.String()),
    callback_url: Nullable(Type.String()),
    channels: Type.Array(StringEnum(CHANNELS)),
    success_url: Nullable(Type.String()),
    cancel_url: Nullable(Type.String()),
    payment: Type.Union(
      [Nullable(Type.String({ description: 'The current (or completing) payment, `pay_…`.' })), Type.Ref(PaymentSchema)],
      {
        description:
          'The current payment id, or null; expanded to the payment where an answer says so (select, checkout.completed).',
      },
    ),
    payments: Type.Array(Type.String(), { description: 'Every payment the checkout made, oldest first.' }),
    expires_at: Timestamp('When the checkout expires if nobody pays.'),
    version: Type.Integer(),
    created_at: Timestamp('When it was created.'),
    updated_at: Timestamp('When it last changed.'),
    closed_at: Nullable(Timestamp('When it completed or expired.')),
    payer_data_erased_at: Type.Optional(
      Nullable(
        Timestamp(
          "When the payer's personal data was erased with its payments' (docs/payer-data.md); null while it is kept. Absent only from an idempotent replay of an answer stored before this field existed (replays are byte for byte).",
        ),
      ),
    ),
    client_secret: Type.Optional(Type.String({ description: "Only in the create answer: authorises the payer's selection." })),
  },
  { $id: 'Checkout', additionalProperties: false },
);

export const CheckoutListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(CheckoutSchema)),
    has_more: Type.Boolean(),
    next_cursor: Nullable(Type.String()),
  },
  { $id: 'CheckoutList', additionalProperties: false },
);
