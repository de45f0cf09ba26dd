import type { Instructions } from '../../src/connectors/core/connector.ts';
import { sandboxBankCapabilities } from '../../src/connectors/sandbox-bank/sandbox-bank.connector.ts';
import type { Store } from '../../src/db/store.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { newId } from '../../src/lib/ids.ts';
import { getKey, type IdempotencyScope } from '../../src/modules/idempotency/idempotency-repo.ts';
import { CREATE_OPERATION, writeCreateFinish, writeCreateStart } from '../../src/modules/payments/create-payment.ts';
import type { Payment } from '../../src/modules/payments/payment-types.ts';
import { paymentView } from '../../src/modules/payments/payment-view.ts';
import type { Principal } from '../../src/kernel/index.ts';
import { newPayment } from '../../src/modules/payments/new-payment.ts';

/**
 * The database ceiling of a create: the very transaction bodies `createPayment` runs for one new
 * payment (`writeCreateStart` and `writeCreateFinish` in src/modules/payments/create-payment.ts),
 * through the same Store:
 *
 *   statement 0: the idempotency key read (a keyed create answers a retry from it; here: none)
 *   statement 1: idempotency key (started), payment (processing), attempt (started)
 *   statement 2: key finished with the response body, attempt issued, payment pending,
 *                event payment.pending
 *
 * (each one statement with data-modifying CTEs, exactly as the product sends them)
 *
 * Between them, when the context has one, the least a provider call costs here (provider-echo.ts):
 * a create cannot be answered without the provider's instructions, so the ceiling includes the
 * cheapest possible round trip (a bare loopback route, the connectors' own transport).
 * No HTTP in, no routing, no validation, none of the reads the service makes around them: the
 * fastest this store can record a create, so the create scenario is judged as a ratio of it. Because the writes are shared code, the ceiling cannot drift from the product.
 */
const LEASE_MS = 60_000;
const TTL_MS = 24 * 3_600_000;

export interface CreateWritesContext {
  store: Store;
  principal: Principal;
  publicBaseUrl: string;
  instructions: Instructions;
  /**
   * The least a provider round trip costs on this machine (provider-echo.ts), made between the two
   * transactions as createPayment makes its provider call. Absent: the database work alone.
   */
  providerCall?: (seq: number) => Promise<void>;
}

export interface WrittenCreate {
  paymentId: string;
  scope: IdempotencyScope;
  body: string;
}

/** Instructions of the size the sandbox bank issues (the ceiling must write rows of real size). */
export function sampleInstructions(merchantName: string): Instructions {
  return {
    type: 'virtual_account',
    bank_code: 'BCA',
    bank_name: 'Bank Central Asia',
    account_number: '3901269986246138',
    account_holder_name: merchantName.slice(0, 60),
  };
}

export async function writeOneCreate(ctx: CreateWritesContext, seq: number): Promise<WrittenCreate> {
  const { store, principal } = ctx;
  const now = new Date();
  const paymentId = newId('payment', now.getTime());
  const attemptId = newId('attempt', now.getTime());
  const scope: IdempotencyScope = {
    merchantId: principal.merchantId,
    environment: principal.environment,
    operation: CREATE_OPERATION,
    key: `ceiling-${process.pid}-${seq}-${paymentId}`,
  };
  const expiresAt = new Date(now.getTime() + sandboxBankCapabilities.instructionTtl.defaultMs);
  const candidates = [{ connector: 'sandbox_bank', channel: 'bank' as const, instrument: 'BCA' }];
  const trace = [{ connector: 'sandbox_bank', channel: 'bank' as const, decision: 'candidate' as const, reason: 'ceiling' }];
  const processing = newPayment({
    id: paymentId,
    merchantId: principal.merchantId,
    environment: principal.environment,
    apiVersion: principal.apiVersion,
    request: {
      amountMinor: 15_000_000n,
      currency: 'IDR' as CurrencyCode,
      referenceNo: `ceiling-${paymentId}`,
      description: null,
      channel: 'auto',
      callbackUrl: null,
      metadata: {},
      email: 'payer@example.com',
    },
    expiresAt,
    now,
    routing: { candidates, trace, attempts: [] },
  });
  const leaseToken = `lease-${seq}`;

  // The key read a keyed create makes first (finding nothing), then the two statements.
  await getKey(store, scope);
  await writeCreateStart(store, {
    scope,
    fingerprint: 'ceiling',
    leaseToken,
    lockedUntil: new Date(now.getTime() + LEASE_MS),
    keyExpiresAt: new Date(now.getTime() + TTL_MS),
    payment: processing,
    attempt: {
      id: attemptId,
      paymentId,
      merchantId: principal.merchantId,
      environment: principal.environment,
      seq: 1,
      connector: 'sandbox_bank',
      channel: 'bank',
      instrument: 'BCA',
      routingTrace: trace,
      chargeExpiresAt: expiresAt,
      now,
    },
  });

  await ctx.providerCall?.(seq);
  const later = new Date();
  const pending: Payment = {
    ...processing,
    status: 'pending',
    channel: 'bank',
    paymentMethod: { channel: 'bank', connector: 'sandbox_bank', instrument: 'BCA', instrument_name: 'Bank Central Asia' },
    instructions: ctx.instructions,
    version: 2,
    updatedAt: later,
    routing: {
      candidates,
      trace,
      attempts: [{ attempt_id: attemptId, connector: 'sandbox_bank', status: 'issued', error_code: null }],
    },
  };
  const view = paymentView(pending, ctx.publicBaseUrl);
  const body = JSON.stringify(view);
  const finished = await writeCreateFinish(store, {
    scope,
    leaseToken,
    body,
    view,
    previous: processing,
    pending,
    attemptId,
    providerReference: `ceiling_${attemptId}`,
    keyExpiresAt: new Date(later.getTime() + TTL_MS),
    nextSyncAt: new Date(later.getTime() + 5 * 60_000),
  });
  if (!finished) throw new Error('ceiling key not finished');
  return { paymentId, scope, body };
}
