import { Type } from '@sinclair/typebox';
import { PAYMENT_STATUSES } from '../../modules/payments/payment-states.ts';
import { MAX_AMOUNT_MINOR } from '../../lib/money.ts';
import { Nullable, REQUEST_PATTERNS, StringEnum, Timestamp, URL_RULES } from './schema-helpers.ts';

/** Limits of the create body; docs/api.md lists them. */
export const CREATE_LIMITS = {
  referenceNoMaxLength: 128,
  descriptionMaxLength: 1000,
  emailMaxLength: 254,
  callbackUrlMaxLength: 2048,
  metadataMaxKeys: 50,
  metadataKeyMaxLength: 40,
  metadataValueMaxLength: 500,
} as const;

/**
 * The largest amount in major units of any currency (15 significant digits, a zero-decimal
 * currency); for a currency with minor units the ceiling is lower, said in AMOUNT_RULES.
 */
export const MAX_AMOUNT_MAJOR = Number(MAX_AMOUNT_MINOR);

export const AMOUNT_RULES =
  'Amount in major units as a JSON number (not a string), with at most the currency’s ISO 4217 minor-unit digits: `150000.00` IDR, `10.5` USD, `5000` VND (more digits is `amount_too_precise`). At most 15 significant digits in minor units: 999999999999999 VND, 9999999999999.99 IDR (more is `amount_too_large`).';

export const CHANNEL_REQUESTS = ['bank', 'ewallet', 'counter', 'auto'] as const;

export const CreatePaymentBodySchema = Type.Object(
  {
    amount: Type.Number({
      exclusiveMinimum: 0,
      maximum: MAX_AMOUNT_MAJOR,
      description: AMOUNT_RULES,
      examples: [150000.0],
    }),
    currency: Type.String({
      minLength: 1,
      maxLength: 3,
      pattern: REQUEST_PATTERNS.currency,
      description: 'An active ISO 4217 code in upper case (an inactive or unknown code is `unknown_currency`).',
      examples: ['IDR'],
    }),
    reference_no: Type.String({
      minLength: 1,
      maxLength: CREATE_LIMITS.referenceNoMaxLength,
      pattern: '^[!-~](?:[ -~]*[!-~])?$',
      description:
        'Your reference for the payment (printable ASCII, no leading or trailing space). Unique among your live (processing, pending, succeeded) payments.',
      examples: ['INV-2026-0001'],
    }),
    description: Type.Optional(
      Nullable(
        Type.String({
          maxLength: CREATE_LIMITS.descriptionMaxLength,
          pattern: REQUEST_PATTERNS.noNul,
          description: 'Free text, without the NUL character (`invalid_character`).',
        }),
      ),
    ),
    channel: Type.Optional(
      Nullable(StringEnum(CHANNEL_REQUESTS, { description: 'Payment channel; `auto` (the default) lets Tributary choose.' })),
    ),
    callback_url: Type.Optional(
      Nullable(
        Type.String({
          maxLength: CREATE_LIMITS.callbackUrlMaxLength,
          format: 'uri',
          description: `Receives this payment's events, signed with the merchant callback secret. ${URL_RULES}`,
        }),
      ),
    ),
    metadata: Type.Optional(
      Nullable(
        Type.Object(
          {},
          {
            maxProperties: CREATE_LIMITS.metadataMaxKeys,
            // propertyNames + additionalProperties, not patternProperties: @fastify/swagger turns
            // patternProperties into a bare additionalProperties, and the key rule was lost.
            propertyNames: { pattern: `^[A-Za-z0-9_.:-]{1,${CREATE_LIMITS.metadataKeyMaxLength}}$` },
            additionalProperties: Type.String({
              maxLength: CREATE_LIMITS.metadataValueMaxLength,
              pattern: REQUEST_PATTERNS.noNul,
            }),
            description: `Up to ${CREATE_LIMITS.metadataMaxKeys} string values (at most ${CREATE_LIMITS.metadataValueMaxLength} characters, without the NUL character: \`invalid_character\`) under keys of 1-${CREATE_LIMITS.metadataKeyMaxLength} letters, digits and _ . : - (another key is \`invalid_metadata_key\`).`,
            examples: [{ customer_id: 'cus_123', notes: 'gift wrap' }],
          },
        ),
      ),
    ),
    email: Type.Optional(
      Nullable(
        Type.String({
          maxLength: CREATE_LIMITS.emailMaxLength,
          format: 'email',
          pattern: REQUEST_PATTERNS.email,
          description: "The payer's e-mail address; its domain must contain a dot (`user@example.com`, not `user@localhost`).",
        }),
      ),
    ),
  },
  { additionalProperties: false },
);

const VirtualAccountInstructions = Type.Object(
  {
    type: Type.Literal('virtual_account'),
    bank_code: Type.String(),
    bank_name: Type.String(),
    account_number: Type.String(),
    account_holder_name: Type.String(),
    amount: Type.Number(),
    currency: Type.String(),
    expires_at: Timestamp('Pay before this time.'),
  },
  { additionalProperties: false, title: 'Virtual account (bank)' },
);

const EwalletInstructions = Type.Object(
  {
    type: Type.Literal('ewallet'),
    provider: Type.String(),
    provider_name: Type.String(),
    checkout_url: Type.String(),
    deep_link: Type.String(),
    qr_string: Type.String(),
    amount: Type.Number(),
    currency: Type.String(),
    expires_at: Timestamp('Pay before this time.'),
  },
  { additionalProperties: false, title: 'E-wallet' },
);

const CounterInstructions = Type.Object(
  {
    type: Type.Literal('counter'),
    partner: Type.String(),
    partner_name: Type.String(),
    payment_code: Type.String(),
    barcode_value: Type.String(),
    outlets: Type.Array(Type.String()),
    amount: Type.Number(),
    currency: Type.String(),
    expires_at: Timestamp('Pay before this time.'),
  },
  { additionalProperties: false, title: 'Over the counter' },
);

const ChannelName = StringEnum(['bank', 'ewallet', 'counter'] as const);

/** How the payment was routed (docs/routing.md): candidates in order, the trace, the attempts. */
const RoutingSchema = Type.Object(
  {
    candidates: Type.Array(
      Type.Object({ connector: Type.String(), channel: ChannelName, instrument: Type.String() }, { additionalProperties: false }),
      { description: 'Connectors in the order they were (or would be) tried.' },
    ),
    trace: Type.Array(
      Type.Object(
        {
          connector: Type.String(),
          channel: ChannelName,
          decision: StringEnum(['candidate', 'excluded'] as const),
          reason: Type.String(),
          rank: Type.Optional(Type.Integer({ minimum: 1 })),
        },
        { additionalProperties: false },
      ),
      { description: 'Why each enabled connector is a candidate (with its rank) or excluded.' },
    ),
    attempts: Type.Array(
      Type.Object(
        {
          attempt_id: Type.String(),
          connector: Type.String(),
          status: Type.String(),
          error_code: Nullable(Type.String()),
        },
        { additionalProperties: false },
      ),
      { description: 'Attempts made when the instructions were issued; a failed one means failover to the next.' },
    ),
  },
  { additionalProperties: false },
);

const LatePaymentSchema = Type.Object(
  {
    attempt_id: Type.String(),
    received_at: Timestamp('When the provider reported the payment.'),
    amount: Type.Number(),
    resolution: StringEnum(['accepted', 'refund_required'] as const, {
      description:
        '`accepted`: the payment became succeeded. `refund_required`: the money is to be returned; the payment stays closed.',
    }),
    reason: StringEnum([
      'paid_before_expiry',
      'merchant_policy',
      'reference_no_reused',
      'payment_failed',
      'stray_attempt',
    ] as const),
  },
  { additionalProperties: false },
);

export const PaymentSchema = Type.Object(
  {
    id: Type.String({ description: '`pay_…`' }),
    object: Type.Literal('payment'),
    environment: StringEnum(['sandbox', 'production'] as const),
    status: StringEnum(PAYMENT_STATUSES, { description: 'See docs/payments.md for the state machine.' }),
    amount: Type.Number({ description: 'Major units, exact.' }),
    currency: Type.String(),
    amount_refunded: Type.Number(),
    reference_no: Type.String(),
    description: Nullable(Type.String()),
    channel: Nullable(
      StringEnum(['bank', 'ewallet', 'counter'] as const, { description: 'The channel in use (resolved from auto).' }),
    ),
    channel_requested: StringEnum(CHANNEL_REQUESTS),
    payment_method: Nullable(
      Type.Object(
        {
          channel: StringEnum(['bank', 'ewallet', 'counter'] as const),
          connector: Type.String(),
          instrument: Type.String(),
          instrument_name: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    instructions: Type.Union([VirtualAccountInstructions, EwalletInstructions, CounterInstructions, Type.Null()], {
      description: 'What the payer needs; null until a provider issued them (status processing).',
    }),
    pay_url: Type.String({ description: 'The hosted page showing the instructions to the payer.' }),
    metadata: Type.Record(Type.String(), Type.String()),
    email: Nullable(Type.String()),
    callback_url: Nullable(Type.String()),
    failure_code: Nullable(Type.String()),
    failure_message: Nullable(Type.String()),
    version: Type.Integer({ minimum: 1, description: 'Bumped by every change; events carry it so receivers can order them.' }),
    api_version: Type.String(),
    expires_at: Timestamp('When a pending payment expires.'),
    created_at: Timestamp('Creation time.'),
    updated_at: Timestamp('Last change.'),
    succeeded_at: Nullable(Timestamp('When the payer paid.')),
    closed_at: Nullable(Timestamp('When the payment reached a final state.')),
    settlement_id: Nullable(
      Type.String({ description: '`stl_…`: the settlement that paid this payment out; null until settled.' }),
    ),
    settled_at: Nullable(Timestamp('When the provider settled the payment.')),
    fee: Nullable(Type.Number({ description: "The provider's fee on this payment, exact, in major units; null until settled." })),
    net: Nullable(
      Type.Number({ description: 'amount_paid − fee: what the provider paid out, exact, in major units; null until settled.' }),
    ),
    amount_paid: Type.Number({
      description: 'What the payer paid, as the provider reported it. Differs from `amount` on an under- or over-payment.',
    }),
    late_payment: Nullable(LatePaymentSchema),
    cancellation_reason: Nullable(
      StringEnum(['requested_by_customer', 'duplicate', 'fraudulent', 'abandoned'] as const, {
        description: 'Set when the payment was canceled with a reason.',
      }),
    ),
    reversal_reason: Nullable(
      Type.String({
        description:
          'Set when the provider reversed the payment: `chargeback` (bank, e-wallet), `counter_reversal` (counter), or the code the provider reported.',
      }),
    ),
    routing: Nullable(RoutingSchema),
    // Optional: an answer stored under an Idempotency-Key before this field existed is replayed
    // byte for byte, without it (found by the upgrade test from release a88605a).
    payer_data_erased_at: Type.Optional(
      Nullable(
        Timestamp(
          "When the payer's personal data (`email`, and e-mail addresses in `description` and `metadata` values) was erased, by `POST /payment/{id}/erase_payer_data` or the retention period (docs/payer-data.md); null while it is kept. Absent only from an idempotent replay of an answer stored before this field existed (replays are byte for byte).",
        ),
      ),
    ),
  },
  { $id: 'Payment', additionalProperties: false },
);
