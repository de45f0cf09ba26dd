import { formatMajorAmount, parseMajorAmount } from '../lib/money.ts';
import { digitsFrom } from './deterministic.ts';
import type { CreateInput, Parsed, ProviderDialect, SandboxCharge, SandboxChargeState } from './sandbox-types.ts';
import { parseCurrency, parseDate, parseMetadata } from './wire-format.ts';

/**
 * "Sandbox Bank": virtual accounts at five banks. Amounts travel as decimal strings in major
 * units (`"150000.00"`), like many bank APIs; a VA accepts partial payments (it stays open until
 * the amount is reached) and over-payments. Statuses: ACTIVE, PARTIALLY_PAID, PAID, FAILED,
 * EXPIRED, CLOSED, REVERSED.
 */
export const SANDBOX_BANKS = [
  { code: 'BCA', name: 'Bank Central Asia', vaPrefix: '3901' },
  { code: 'BNI', name: 'Bank Negara Indonesia', vaPrefix: '8808' },
  { code: 'BRI', name: 'Bank Rakyat Indonesia', vaPrefix: '2620' },
  { code: 'MANDIRI', name: 'Bank Mandiri', vaPrefix: '8860' },
  { code: 'PERMATA', name: 'Bank Permata', vaPrefix: '8214' },
] as const;

const STATUS: Record<SandboxChargeState, string> = {
  active: 'ACTIVE',
  partially_paid: 'PARTIALLY_PAID',
  paid: 'PAID',
  failed: 'FAILED',
  expired: 'EXPIRED',
  closed: 'CLOSED',
  reversed: 'REVERSED',
};

/** Flat fee per paid VA, in minor units of the payment's currency. */
const FLAT_FEE_MINOR = 400_000n;

export const bankDialect: ProviderDialect = {
  connector: 'sandbox_bank',
  chargesPath: '/bank/v1/virtual_accounts',
  closeVerb: 'close',
  refundsPath: '/bank/v1/refunds',
  settlementsPath: '/bank/v1/settlements',
  referencePrefix: 'sbva_',
  signatureHeader: 'x-sandbox-signature',
  instruments: SANDBOX_BANKS.map(({ code, name }) => ({ code, name })),
  acceptsPartialPayment: true,
  acceptsOverpayment: true,
  declineAmount: 66_666n,
  supportsRefund: true,
  feeMinor: (gross) => (gross < FLAT_FEE_MINOR ? gross : FLAT_FEE_MINOR),

  parseCreate(body): Parsed<CreateInput> {
    const b = (body ?? {}) as Record<string, unknown>;
    const currency = parseCurrency(b['currency']);
    const expiresAt = parseDate(b['expiration_date']);
    if (currency === undefined || expiresAt === undefined || typeof b['external_id'] !== 'string') {
      return { ok: false, code: 'INVALID_REQUEST', message: 'external_id, currency and expiration_date are required' };
    }
    const amount = typeof b['amount'] === 'string' ? parseMajorAmount(b['amount'], currency) : undefined;
    if (amount === undefined || !amount.ok)
      return { ok: false, code: 'INVALID_AMOUNT', message: 'amount must be a decimal string' };
    return {
      ok: true,
      value: {
        externalId: b['external_id'],
        instrument: typeof b['bank_code'] === 'string' ? b['bank_code'] : '',
        amountMinor: amount.minor,
        currency,
        expiresAt,
        holderName: typeof b['name'] === 'string' ? b['name'].slice(0, 60) : '',
        description: typeof b['description'] === 'string' ? b['description'] : null,
        metadata: parseMetadata(b['metadata']),
      },
    };
  },

  renderCharge(c: SandboxCharge) {
    const bank = SANDBOX_BANKS.find((x) => x.code === c.instrument) ?? SANDBOX_BANKS[0];
    return {
      id: c.id,
      external_id: c.externalId,
      bank_code: bank.code,
      bank_name: bank.name,
      account_number: bank.vaPrefix + digitsFrom(`va:${c.externalId}`, 12),
      name: c.holderName,
      amount: formatMajorAmount(c.amountMinor, c.currency),
      paid_amount: formatMajorAmount(c.amountPaidMinor, c.currency),
      currency: c.currency,
      status: STATUS[c.state],
      version: c.sequence,
      expiration_date: c.expiresAt.toISOString(),
      paid_at: c.paidAt?.toISOString() ?? null,
      failure_code: c.failureCode,
      metadata: c.metadata,
      created: c.createdAt.toISOString(),
      updated: c.updatedAt.toISOString(),
    };
  },

  renderNotification(eventId, c, at) {
    return { id: eventId, event: 'virtual_account.status_changed', created: at.toISOString(), data: bankDialect.renderCharge(c) };
  },
};
