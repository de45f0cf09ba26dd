import type { FieldIssue } from '../../lib/error-catalogue.ts';
import { type Allowlist, checkOutboundUrl } from '../../lib/net/address-policy.ts';
import { amountInput, currencyInput } from './money-input.ts';
import type { ChannelRequest, Environment } from '../../kernel/index.ts';
import type { CreatePaymentInput } from './payment-types.ts';

/** The create body after schema validation: types are right, domain rules not yet checked. */
export interface CreatePaymentBody {
  amount: number;
  currency: string;
  reference_no: string;
  description?: string | null;
  channel?: ChannelRequest | null;
  callback_url?: string | null;
  metadata?: Record<string, string> | null;
  email?: string | null;
}

const nulIssue = (field: string): FieldIssue => ({
  field,
  issue: 'invalid_character',
  message: `${field} must not contain the NUL character (U+0000)`,
});

/**
 * The domain rules of a create request that a JSON schema cannot express: exact money against
 * the currency's minor unit (from the number's source text), the ISO 4217 table, URL safety.
 * Returns every problem at once.
 */
export function normalizeCreatePayment(
  body: CreatePaymentBody,
  amountText: string | undefined,
  context: { environment: Environment; allowlist: Allowlist },
): { ok: true; input: CreatePaymentInput } | { ok: false; issues: FieldIssue[] } {
  const issues: FieldIssue[] = [];
  const currencyResult = currencyInput(body.currency, 'currency');
  if (!currencyResult.ok) issues.push(currencyResult.issue);
  const currency = currencyResult.ok ? currencyResult.value : undefined;

  let amountMinor: bigint | undefined;
  // The scanner finds the text for every JSON body; its absence means a bug, so fall back to the
  // shortest round-trip text of the double, which is exact for every amount we accept.
  const text = amountText ?? String(body.amount);
  if (currency !== undefined) {
    const amountResult = amountInput(text, currency, 'amount');
    if (amountResult.ok) amountMinor = amountResult.value;
    else issues.push(amountResult.issue);
  }

  // PostgreSQL text and jsonb cannot hold U+0000: refuse it here as a field problem rather than
  // let the INSERT fail with a 500 (found by the fuzz scenario of the reliability suite).
  if (body.description?.includes('\u0000') === true) issues.push(nulIssue('description'));
  for (const [key, value] of Object.entries(body.metadata ?? {})) {
    if (value.includes('\u0000')) issues.push(nulIssue(`metadata.${key}`));
  }

  let callbackUrl: string | null = null;
  if (body.callback_url != null) {
    const check = checkOutboundUrl(body.callback_url, context.allowlist, { requireHttps: context.environment === 'production' });
    if (check.ok) callbackUrl = check.url.toString();
    else issues.push({ field: 'callback_url', issue: check.issue, message: check.message });
  }

  if (issues.length > 0 || amountMinor === undefined || currency === undefined) return { ok: false, issues };
  return {
    ok: true,
    input: {
      amountMinor,
      currency,
      referenceNo: body.reference_no,
      description: body.description ?? null,
      channel: body.channel ?? 'auto',
      callbackUrl,
      metadata: body.metadata ?? {},
      email: body.email ?? null,
    },
  };
}
