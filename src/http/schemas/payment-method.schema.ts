import { Type } from '@sinclair/typebox';
import { StringEnum } from './schema-helpers.ts';

/** One connector's offer: GET /payment_method lists these (docs/api.md). */
export const PaymentMethodSchema = Type.Object(
  {
    object: Type.Literal('payment_method'),
    channel: StringEnum(['bank', 'ewallet', 'counter'] as const),
    connector: Type.String({ description: 'The connector that serves this method, e.g. `sandbox_bank`.' }),
    connector_name: Type.String(),
    instruments: Type.Array(
      Type.Object(
        {
          code: Type.String({ description: 'Bank code (`BCA`), wallet (`DANA`) or counter partner (`ALFAMART`).' }),
          name: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    currencies: Type.Array(
      Type.Object(
        {
          currency: Type.String({ description: 'ISO 4217 code.' }),
          min_amount: Type.Number({ description: 'Smallest accepted amount, major units, exact.' }),
          max_amount: Type.Number({ description: 'Largest accepted amount, major units, exact.' }),
        },
        { additionalProperties: false },
      ),
      { description: 'Accepted currencies and amount bounds; only the requested currency when `currency` is given.' },
    ),
    instruction_expiry: Type.Object(
      {
        default_seconds: Type.Integer({ description: 'How long issued instructions stay payable by default.' }),
        min_seconds: Type.Integer(),
        max_seconds: Type.Integer(),
      },
      { additionalProperties: false },
    ),
    supports: Type.Object(
      { cancel: Type.Boolean(), refund: Type.Boolean(), partial_refund: Type.Boolean() },
      { additionalProperties: false },
    ),
  },
  { $id: 'PaymentMethod', additionalProperties: false },
);

export const PaymentMethodListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(PaymentMethodSchema)),
  },
  { $id: 'PaymentMethodList', additionalProperties: false },
);
