import { callProvider } from '../../connectors/core/provider-call.ts';
import type { SimulatedOutcome } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ErrorCode, ErrorDetail } from '../../lib/error-catalogue.ts';
import type { Logger } from '../../lib/logger.ts';
import { minorUnitDigits } from '../../lib/currencies.ts';
import { parseMajorAmount, toMajorNumber } from '../../lib/money.ts';
import { type PaymentStatus, findIssuedAttempt, findPayment } from '../payments/index.ts';
import { ingestSettlements } from '../settlement/index.ts';
import type { Principal } from '../../kernel/index.ts';

/**
 * POST /sandbox/payment/{id}/simulate without the HTTP. It never writes the payment: it asks the
 * sandbox provider to make the payer (or the provider) do something, and the provider reports it
 * the way it reports everything, with a signed notification to /provider/{connector}/callback.
 * The payment changes when that notification is processed, exactly as in production.
 *
 * `settled` asks the provider to settle the paid charge now (its `settle` control), then ingests
 * that connector's settlement report at once, so the payment is settled (with its
 * `payment.settled` event) when the answer comes back: the same ingestion the scheduled job runs.
 * Sandbox keys only; a production key gets 404 as if the route did not exist.
 */
export type SimulateRequestOutcome = 'succeeded' | 'failed' | 'expired' | 'reversed' | 'settled';

export interface SimulateDeps {
  store: Store;
  clock: Clock;
  connectors: ConnectorRegistry;
  log: Logger;
  connectorTimeoutMs: number;
  publicBaseUrl: string;
}

export interface SandboxSimulation {
  object: 'sandbox_simulation';
  payment_id: string;
  outcome: SimulateRequestOutcome;
  amount: number | null;
  currency: string;
  connector: string;
  provider_reference: string;
  provider_status: string;
  notification: string;
  /** `settled` only: the settlement that paid the payment out (null if the report could not be read yet). */
  settlement_id?: string | null;
}

export type SimulateResult =
  | { kind: 'accepted'; body: SandboxSimulation }
  | { kind: 'failure'; code: ErrorCode; message: string; details: ErrorDetail[]; retryAfterSeconds?: number };

/** Which payment states each outcome may be simulated from. A paid-after-close is the late payment. */
const ALLOWED_FROM: Record<SimulateRequestOutcome, readonly PaymentStatus[]> = {
  succeeded: ['pending', 'expired', 'canceled'],
  failed: ['pending'],
  expired: ['pending'],
  reversed: ['succeeded'],
  settled: ['succeeded'],
};

const PROVIDER_ACTION: Record<SimulateRequestOutcome, SimulatedOutcome> = {
  succeeded: 'paid',
  failed: 'failed',
  expired: 'expired',
  reversed: 'reversed',
  settled: 'settled',
};

const fail = (code: ErrorCode, message: string, details: ErrorDetail[] = []): SimulateResult => ({
  kind: 'failure',
  code,
  message,
  details,
});

export async function simulatePayment(
  deps: SimulateDeps,
  principal: Principal,
  paymentId: string,
  outcome: SimulateRequestOutcome,
  /** The exact text of the JSON number `amount`, parsed like create's amount once the currency is known. */
  amountText: string | null,
): Promise<SimulateResult> {
  if (principal.environment !== 'sandbox') return fail('route_not_found', 'No such route.');
  const payment = await findPayment(deps.store, principal.merchantId, principal.environment, paymentId);
  if (payment === undefined) return fail('resource_not_found', 'No such payment.');
  if (amountText !== null && outcome !== 'succeeded') {
    return fail('invalid_request', 'The request has invalid fields.', [
      { field: 'amount', issue: 'not_allowed', message: 'amount is only allowed with outcome "succeeded"' },
    ]);
  }
  let amountMinor: bigint | null = null;
  if (amountText !== null) {
    const parsed = parseMajorAmount(amountText, payment.currency);
    if (!parsed.ok) {
      return fail('invalid_request', 'The request has invalid fields.', [
        {
          field: 'amount',
          issue: parsed.issue,
          message:
            parsed.issue === 'amount_too_precise'
              ? `${payment.currency} amounts have at most ${minorUnitDigits(payment.currency)} fractional digits`
              : 'amount must be a positive JSON number',
        },
      ]);
    }
    amountMinor = parsed.minor;
  }
  if (!ALLOWED_FROM[outcome].includes(payment.status)) {
    return fail('payment_state_conflict', `Cannot simulate "${outcome}" for a ${payment.status} payment.`, [
      { status: payment.status, outcome },
    ]);
  }
  if (outcome === 'settled' && payment.settlementId !== null) {
    return fail('payment_state_conflict', `The payment is already settled (${payment.settlementId}).`, [
      { status: payment.status, settlement_id: payment.settlementId, outcome },
    ]);
  }
  const attempt = await findIssuedAttempt(deps.store, principal.merchantId, principal.environment, paymentId);
  const connector = attempt === undefined ? undefined : deps.connectors.get(attempt.connector);
  if (attempt?.providerReference == null || connector?.sandbox === undefined) {
    return fail('operation_not_supported', "This payment's connector is not a simulator.", [
      { connector: attempt?.connector ?? null },
    ]);
  }
  if (outcome === 'settled' && !connector.capabilities.supports.settlement) {
    return fail('operation_not_supported', "This payment's connector does not report settlements.", [
      { connector: attempt.connector },
    ]);
  }
  const sandbox = connector.sandbox;
  const providerReference = attempt.providerReference;
  const result = await callProvider(deps, 'simulate', { payment_id: paymentId }, (ctx) =>
    sandbox.simulate({ attemptId: attempt.id, providerReference, outcome: PROVIDER_ACTION[outcome], amountMinor }, ctx),
  );
  if (result.kind === 'unknown') {
    return {
      kind: 'failure',
      code: 'provider_unavailable',
      message: 'The sandbox provider did not answer. Retry shortly.',
      details: [],
      retryAfterSeconds: 1,
    };
  }
  if (result.kind === 'refused') {
    if (result.code === 'amount_mismatch' || result.code === 'invalid_amount') {
      return fail('invalid_request', 'The request has invalid fields.', [
        { field: 'amount', issue: 'amount_not_accepted', message: `the provider refused this amount: ${result.message}` },
      ]);
    }
    return fail('payment_state_conflict', `The provider refused: ${result.message}`, [{ provider_code: result.code }]);
  }
  const paidMinor = amountMinor ?? (outcome === 'succeeded' ? payment.amountMinor - attempt.amountPaidMinor : null);
  const body: SandboxSimulation = {
    object: 'sandbox_simulation' as const,
    payment_id: payment.id,
    outcome,
    amount: paidMinor === null ? null : toMajorNumber(paidMinor, payment.currency),
    currency: payment.currency,
    connector: attempt.connector,
    provider_reference: attempt.providerReference,
    provider_status: result.snapshot.status,
    notification:
      'The provider notifies Tributary asynchronously (POST /provider/{connector}/callback); the payment changes when that notification is processed.',
  };
  if (outcome === 'settled') {
    // Settlement is not a notification: the provider reports it in its settlement report, which
    // is ingested now for this connector (outside any transaction, like the scheduled job).
    await ingestSettlements(deps, attempt.connector);
    const settled = await findPayment(deps.store, principal.merchantId, principal.environment, paymentId);
    body.notification =
      "The provider settled the charge; Tributary ingested the provider's settlement report at once (GET /settlement lists the batch).";
    body.settlement_id = settled?.settlementId ?? null;
  }
  return { kind: 'accepted', body };
}
