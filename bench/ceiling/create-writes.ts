import type { Instructions } from '../../src/connectors/core/connector.ts';
import { createSandboxBankConnector, sandboxBankCapabilities } from '../../src/connectors/sandbox-bank/sandbox-bank.connector.ts';
import type { Store } from '../../src/db/store.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { newId } from '../../src/lib/ids.ts';
import { insertEvent } from '../../src/modules/events/event-repo.ts';
import { finishKey, type IdempotencyScope, insertStartedKey } from '../../src/modules/idempotency/idempotency-repo.ts';
import { CREATE_OPERATION } from '../../src/modules/payments/create-payment.ts';
import { insertAttempt, insertPayment, markAttemptIssued, markPaymentPending } from '../../src/modules/payments/payment-repo.ts';
import type { Payment, Principal } from '../../src/modules/payments/payment-types.ts';
import { paymentView } from '../../src/modules/payments/payment-view.ts';

/**
 * The database ceiling of a create: exactly the writes `createPayment` makes for one new payment
 * (src/modules/payments/create-payment.ts), through the same repo functions and the same Store:
 *
 *   transaction 1: insertStartedKey, insertPayment (processing), insertAttempt (started)
 *   transaction 2: finishKey (with the response body), markAttemptIssued, markPaymentPending,
 *                  insertEvent (payment.pending)
 *
 * No HTTP, no routing, no validation, no provider call, none of the reads the service makes
 * between the two transactions: the fastest this store can record a create, so the create
 * scenario is judged as a ratio of it.
 */
const LEASE_MS = 60_000;
const TTL_MS = 24 * 3_600_000;

export interface CreateWritesContext {
  store: Store;
  principal: Principal;
  publicBaseUrl: string;
  instructions: Instructions;
}

export interface WrittenCreate {
  paymentId: string;
  scope: IdempotencyScope;
  body: string;
}

/** Realistic instructions, made once by the sandbox bank (rows the size the service writes). */
export async function sampleInstructions(merchantName: string): Promise<Instructions> {
  const now = new Date();
  const outcome = await createSandboxBankConnector().createCharge(
    {
      attemptId: newId('attempt'),
      paymentId: newId('payment'),
      merchantId: 'mer_bench',
      merchantName,
      environment: 'sandbox',
      amountMinor: 15_000_000n,
      currency: 'IDR' as CurrencyCode,
      instrument: 'BCA',
      referenceNo: 'bench',
      description: null,
      email: 'payer@example.com',
      expiresAt: new Date(now.getTime() + 86_400_000),
    },
    { signal: AbortSignal.timeout(1_000), now },
  );
  if (outcome.kind !== 'issued') throw new Error(`sandbox bank did not issue: ${outcome.kind}`);
  return outcome.instructions;
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
  const processing: Payment = {
    id: paymentId,
    merchantId: principal.merchantId,
    environment: principal.environment,
    status: 'processing',
    amountMinor: 15_000_000n,
    currency: 'IDR' as CurrencyCode,
    referenceNo: `ceiling-${paymentId}`,
    description: null,
    channelRequested: 'auto',
    channel: null,
    paymentMethod: null,
    instructions: null,
    metadata: {},
    email: 'payer@example.com',
    callbackUrl: null,
    apiVersion: principal.apiVersion,
    version: 1,
    expiresAt: new Date(now.getTime() + sandboxBankCapabilities.instructionTtl.defaultMs),
    failureCode: null,
    failureMessage: null,
    amountRefundedMinor: 0n,
    createdAt: now,
    updatedAt: now,
    succeededAt: null,
    closedAt: null,
  };
  const leaseToken = `lease-${seq}`;

  await store.transaction(async (tx) => {
    const inserted = await insertStartedKey(tx, scope, {
      fingerprint: 'ceiling',
      recoveryPoint: 'payment_created',
      resourceId: paymentId,
      leaseToken,
      lockedUntil: new Date(now.getTime() + LEASE_MS),
      now,
      expiresAt: new Date(now.getTime() + TTL_MS),
    });
    if (!inserted) throw new Error('ceiling key collided');
    await insertPayment(tx, processing);
    await insertAttempt(tx, {
      id: attemptId,
      paymentId,
      merchantId: principal.merchantId,
      environment: principal.environment,
      seq: 1,
      connector: 'sandbox_bank',
      channel: 'bank',
      instrument: 'BCA',
      routingTrace: [{ connector: 'sandbox_bank', decision: 'candidate' }],
      now,
    });
  });

  const later = new Date();
  const pending: Payment = {
    ...processing,
    status: 'pending',
    channel: 'bank',
    paymentMethod: { channel: 'bank', connector: 'sandbox_bank', instrument: 'BCA', instrument_name: 'Bank Central Asia' },
    instructions: ctx.instructions,
    version: 2,
    updatedAt: later,
  };
  const view = paymentView(pending, ctx.publicBaseUrl);
  const body = JSON.stringify(view);
  await store.transaction(async (tx) => {
    const finished = await finishKey(tx, scope, {
      leaseToken,
      responseStatus: 201,
      responseBody: body,
      now: later,
      expiresAt: new Date(later.getTime() + TTL_MS),
    });
    if (!finished) throw new Error('ceiling key not finished');
    await markAttemptIssued(tx, {
      id: attemptId,
      providerReference: `ceiling_${attemptId}`,
      instructions: ctx.instructions,
      now: later,
    });
    if (!(await markPaymentPending(tx, pending))) throw new Error('ceiling payment not pending');
    await insertEvent(tx, {
      merchantId: principal.merchantId,
      environment: principal.environment,
      type: 'payment.pending',
      objectType: 'payment',
      objectId: paymentId,
      objectVersion: 2,
      apiVersion: principal.apiVersion,
      object: view,
      previousAttributes: { status: 'processing', instructions: null },
      now: later,
    });
  });
  return { paymentId, scope, body };
}
