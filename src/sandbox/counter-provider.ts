import { digitsFrom } from './deterministic.ts';
import type { CreateInput, Parsed, ProviderDialect, SandboxCharge } from './sandbox-types.ts';
import { exactAmountStatusWords, parseCurrency, parseDate, parseMetadata, parseMinor } from './wire-format.ts';

/**
 * "Sandbox counter": payment codes paid in cash at retail outlets. The cashier takes the exact
 * amount; refunds do not exist at the counter. Statuses: ACTIVE, COMPLETED, FAILED, EXPIRED,
 * CANCELLED, REVERSED.
 */
export const SANDBOX_PARTNERS = [
  { code: 'ALFAMART', name: 'Alfamart (sandbox)', outlets: ['Alfamart', 'Alfamidi', 'Dan+Dan'] },
  { code: 'INDOMARET', name: 'Indomaret (sandbox)', outlets: ['Indomaret', 'Ceriamart'] },
] as const;

const status = exactAmountStatusWords({
  active: 'ACTIVE',
  paid: 'COMPLETED',
  failed: 'FAILED',
  expired: 'EXPIRED',
  closed: 'CANCELLED',
  reversed: 'REVERSED',
});

/** Flat fee per paid code. */
const FLAT_FEE_MINOR = 500_000n;

export const counterDialect: ProviderDialect = {
  connector: 'sandbox_counter',
  chargesPath: '/counter/v1/payment_codes',
  closeVerb: 'cancel',
  refundsPath: '/counter/v1/refunds',
  settlementsPath: '/counter/v1/settlements',
  referencePrefix: 'sbct_',
  signatureHeader: 'x-sandbox-signature',
  instruments: SANDBOX_PARTNERS.map(({ code, name }) => ({ code, name })),
  acceptsPartialPayment: false,
  acceptsOverpayment: false,
  declineAmount: 44_444n,
  supportsRefund: false,
  feeMinor: (gross) => (gross < FLAT_FEE_MINOR ? gross : FLAT_FEE_MINOR),

  parseCreate(body): Parsed<CreateInput> {
    const b = (body ?? {}) as Record<string, unknown>;
    const currency = parseCurrency(b['currency']);
    const expiresAt = parseDate(b['expired_at']);
    const amount = parseMinor(b['payment_amount']);
    if (currency === undefined || expiresAt === undefined || amount === undefined || typeof b['merchant_ref'] !== 'string') {
      return {
        ok: false,
        code: 'INVALID_REQUEST',
        message: 'merchant_ref, payment_amount, currency and expired_at are required',
      };
    }
    return {
      ok: true,
      value: {
        externalId: b['merchant_ref'],
        instrument: typeof b['retail_outlet'] === 'string' ? b['retail_outlet'] : '',
        amountMinor: amount,
        currency,
        expiresAt,
        holderName: typeof b['customer_name'] === 'string' ? b['customer_name'] : '',
        description: null,
        metadata: parseMetadata(b['metadata']),
      },
    };
  },

  renderCharge(c: SandboxCharge) {
    const partner = SANDBOX_PARTNERS.find((p) => p.code === c.instrument) ?? SANDBOX_PARTNERS[0];
    const code = `TRB${digitsFrom(`pc:${c.externalId}`, 10)}`;
    return {
      id: c.id,
      merchant_ref: c.externalId,
      retail_outlet: partner.code,
      retail_outlet_name: partner.name,
      outlets: [...partner.outlets],
      payment_code: code,
      barcode: code,
      customer_name: c.holderName,
      status: status(c.state),
      payment_amount: c.amountMinor.toString(),
      paid_amount: c.amountPaidMinor.toString(),
      currency: c.currency,
      seq: c.sequence,
      expired_at: c.expiresAt.toISOString(),
      paid_at: c.paidAt?.toISOString() ?? null,
      failure_code: c.failureCode,
      metadata: c.metadata,
    };
  },

  renderNotification(eventId, c, at) {
    return { notification_id: eventId, sent_at: at.toISOString(), payment_code: counterDialect.renderCharge(c) };
  },
};
