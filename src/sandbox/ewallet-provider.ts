import { digitsFrom, tokenFrom } from './deterministic.ts';
import type { CreateInput, Parsed, ProviderDialect, SandboxCharge } from './sandbox-types.ts';
import { exactAmountStatusWords, parseCurrency, parseDate, parseMetadata, parseMinor } from './wire-format.ts';

/**
 * "Sandbox e-wallet": a checkout URL, a deep link and a QR string per charge. Amounts travel as
 * integer strings of minor units (`amount_minor`). Wallets take the exact amount only. Statuses:
 * PENDING, SUCCEEDED, FAILED, EXPIRED, VOIDED, REVERSED.
 */
export const SANDBOX_WALLETS = [
  { code: 'SANDBOXPAY', name: 'SandboxPay' },
  { code: 'DANA', name: 'DANA (sandbox)' },
  { code: 'GCASH', name: 'GCash (sandbox)' },
] as const;

const status = exactAmountStatusWords({
  active: 'PENDING',
  paid: 'SUCCEEDED',
  failed: 'FAILED',
  expired: 'EXPIRED',
  closed: 'VOIDED',
  reversed: 'REVERSED',
});

/** 1.5 % of the gross, rounded half up, in integer arithmetic. */
const feeMinor = (gross: bigint) => (gross * 15n + 500n) / 1000n;

export const ewalletDialect: ProviderDialect = {
  connector: 'sandbox_ewallet',
  chargesPath: '/ewallet/v1/charges',
  closeVerb: 'void',
  refundsPath: '/ewallet/v1/refunds',
  settlementsPath: '/ewallet/v1/settlements',
  referencePrefix: 'sbew_',
  signatureHeader: 'x-ewallet-signature',
  instruments: SANDBOX_WALLETS,
  acceptsPartialPayment: false,
  acceptsOverpayment: false,
  declineAmount: 55_555n,
  supportsRefund: true,
  feeMinor,

  parseCreate(body): Parsed<CreateInput> {
    const b = (body ?? {}) as Record<string, unknown>;
    const currency = parseCurrency(b['currency']);
    const expiresAt = parseDate(b['expires_at']);
    const amount = parseMinor(b['amount_minor']);
    if (currency === undefined || expiresAt === undefined || amount === undefined || typeof b['reference_id'] !== 'string') {
      return { ok: false, code: 'INVALID_REQUEST', message: 'reference_id, amount_minor, currency and expires_at are required' };
    }
    return {
      ok: true,
      value: {
        externalId: b['reference_id'],
        instrument: typeof b['channel_code'] === 'string' ? b['channel_code'] : '',
        amountMinor: amount,
        currency,
        expiresAt,
        holderName: typeof b['merchant_name'] === 'string' ? b['merchant_name'] : '',
        description: typeof b['description'] === 'string' ? b['description'] : null,
        metadata: parseMetadata(b['metadata']),
      },
    };
  },

  renderCharge(c: SandboxCharge) {
    const wallet = SANDBOX_WALLETS.find((w) => w.code === c.instrument) ?? SANDBOX_WALLETS[0];
    const token = tokenFrom(`ew:${c.externalId}`, 22);
    return {
      id: c.id,
      reference_id: c.externalId,
      channel_code: wallet.code,
      channel_name: wallet.name,
      status: status(c.state),
      amount_minor: c.amountMinor.toString(),
      captured_minor: c.amountPaidMinor.toString(),
      currency: c.currency,
      actions: {
        checkout_url: `https://checkout.sandbox.invalid/${wallet.code.toLowerCase()}/${token}`,
        deep_link: `${wallet.code.toLowerCase()}://pay?token=${token}`,
        qr_string: `00020101021226${digitsFrom(`qr:${c.externalId}`, 24)}5303360540${c.amountMinor}6304`,
      },
      revision: c.sequence,
      expires_at: c.expiresAt.toISOString(),
      captured_at: c.paidAt?.toISOString() ?? null,
      failure_code: c.failureCode,
      metadata: c.metadata,
      created_at: c.createdAt.toISOString(),
    };
  },

  renderNotification(eventId, c, at) {
    return {
      event_id: eventId,
      type: `ewallet.charge.${status(c.state).toLowerCase()}`,
      occurred_at: at.toISOString(),
      data: ewalletDialect.renderCharge(c),
    };
  },
};
