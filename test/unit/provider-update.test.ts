import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ChargeSnapshot, ProviderChargeStatus } from '../../src/connectors/core/connector.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import type { AttemptState, Payment } from '../../src/modules/payments/payment-types.ts';
import { decideProviderUpdate } from '../../src/modules/payments/provider-update.ts';
import type { LatePaymentPolicy } from '../../src/kernel/index.ts';

/**
 * The pure core of "duplicate and out-of-order notifications change nothing twice": a provider's
 * history of one charge, delivered to decideProviderUpdate in any order with any duplicates, ends
 * where in-order delivery ends, with each change made once.
 */
const T0 = Date.UTC(2026, 10, 21, 10);
const EXPIRES = T0 + 3_600_000;
const AMOUNT = 15_000_000n;

function payment(): Payment {
  const at = new Date(T0);
  return {
    id: 'pay_x',
    merchantId: 'mer_x',
    environment: 'sandbox',
    status: 'pending',
    amountMinor: AMOUNT,
    currency: 'IDR' as CurrencyCode,
    referenceNo: 'r',
    description: null,
    channelRequested: 'bank',
    channel: 'bank',
    paymentMethod: null,
    instructions: null,
    metadata: {},
    email: null,
    callbackUrl: null,
    apiVersion: '2026-11-01',
    version: 2,
    expiresAt: new Date(EXPIRES),
    failureCode: null,
    failureMessage: null,
    amountRefundedMinor: 0n,
    createdAt: at,
    updatedAt: at,
    succeededAt: null,
    closedAt: null,
    routing: null,
    amountPaidMinor: 0n,
    latePayment: null,
    cancellationReason: null,
    reversalReason: null,
    settlementId: null,
    settledAt: null,
    feeMinor: null,
    netMinor: null,
    payerDataErasedAt: null,
  };
}

function attempt(): AttemptState {
  return {
    id: 'att_x',
    paymentId: 'pay_x',
    seq: 1,
    connector: 'sandbox_bank',
    channel: 'bank',
    instrument: 'BCA',
    status: 'issued',
    providerReference: 'sbva_x',
    errorCode: null,
    errorMessage: null,
    createdAt: new Date(T0),
    chargeExpiresAt: new Date(EXPIRES),
    merchantId: 'mer_x',
    environment: 'sandbox',
    providerStatus: null,
    providerSequence: 0,
    amountPaidMinor: 0n,
    paidAt: null,
    latePaymentAt: null,
    latePaymentResolution: null,
    lateProviderReference: null,
    nextSyncAt: new Date(T0 + 300_000),
    syncCount: 0,
  };
}

type Action = { kind: 'partial' | 'pay' | 'fail' | 'expire' | 'reverse'; atMs: number };

/** A provider's history: each action allowed by the provider's own state machine. */
function history(actions: readonly Action[]): ChargeSnapshot[] {
  let status: ProviderChargeStatus = 'pending';
  let paid = 0n;
  let paidAt: Date | null = null;
  let wasLate = false;
  const out: ChargeSnapshot[] = [];
  for (const a of actions) {
    const open = status === 'pending' || status === 'partially_paid';
    let next: ProviderChargeStatus | undefined;
    if (a.kind === 'partial' && open && paid === 0n) {
      paid = AMOUNT / 3n;
      next = 'partially_paid';
    } else if (a.kind === 'pay' && (open || status === 'expired')) {
      wasLate = status === 'expired';
      paid = AMOUNT;
      paidAt = new Date(a.atMs);
      next = 'paid';
    } else if (a.kind === 'fail' && open) next = 'failed';
    else if (a.kind === 'expire' && open) next = 'expired';
    // A reversal of a late payment is left out: its meaning depends on the late-payment decision.
    else if (a.kind === 'reverse' && status === 'paid' && !wasLate) next = 'reversed';
    if (next === undefined) continue;
    status = next;
    out.push({
      providerReference: 'sbva_x',
      attemptId: 'att_x',
      owner: { merchantId: 'mer_x', environment: 'sandbox', paymentId: 'pay_x' },
      status,
      amountMinor: AMOUNT,
      amountPaidMinor: paid,
      currency: 'IDR',
      sequence: out.length + 2,
      paidAt,
      failureCode: status === 'failed' ? 'declined' : null,
    });
  }
  return out;
}

/** Applies reports one by one as the database would; returns the end state and the events. */
function deliver(reports: readonly ChargeSnapshot[], policy: LatePaymentPolicy) {
  let p = payment();
  let a = attempt();
  const events: string[] = [];
  for (const snapshot of reports) {
    const d = decideProviderUpdate({
      payment: p,
      attempt: a,
      snapshot,
      policy,
      acceptBlocked: false,
      now: new Date(T0 + 7_200_000),
    });
    if (d.kind !== 'apply') continue;
    for (const s of d.steps) {
      assert.equal(s.after.version, p.version + 1, 'one version per change');
      events.push(s.event);
      p = s.after;
    }
    a = { ...a, ...d.attempt, nextSyncAt: d.attempt.keepSyncing ? a.nextSyncAt : null };
  }
  return { payment: p, attempt: a, events };
}

// Actions happen before or after the expiry (EXPIRES), so some payments are late.
const actionArb = fc.record({
  kind: fc.constantFrom('partial', 'pay', 'fail', 'expire', 'reverse') as fc.Arbitrary<Action['kind']>,
  atMs: fc.integer({ min: T0 + 1, max: T0 + 7_000_000 }),
});
const historyArb = fc
  .array(actionArb, { minLength: 1, maxLength: 6 })
  .map((actions) => {
    // The provider expires at EXPIRES: an action after it on an open charge finds it expired.
    const sorted = [...actions].sort((x, y) => x.atMs - y.atMs);
    const withExpiry: Action[] = [];
    let expiryAdded = false;
    for (const a of sorted) {
      if (!expiryAdded && a.atMs > EXPIRES) {
        withExpiry.push({ kind: 'expire', atMs: EXPIRES });
        expiryAdded = true;
      }
      withExpiry.push(a);
    }
    return history(withExpiry);
  })
  .filter((h) => h.length > 0);
const policyArb = fc.constantFrom('accept', 'refund') as fc.Arbitrary<LatePaymentPolicy>;

describe('decideProviderUpdate (property)', () => {
  it('any order, any duplicates: the same end as in order, each change once', () => {
    fc.assert(
      fc.property(
        historyArb,
        policyArb,
        fc.func(fc.integer()),
        fc.array(fc.nat(), { maxLength: 4 }),
        (reports, policy, shuffleKey, duplicates) => {
          const inOrder = deliver(reports, policy);
          const dupes = duplicates.map((i) => reports[i % reports.length] as ChargeSnapshot);
          const scrambled = [...reports, ...dupes]
            .map((r, i) => ({ r, k: shuffleKey(i) }))
            .sort((x, y) => x.k - y.k)
            .map((x) => x.r);
          const got = deliver(scrambled, policy);
          assert.equal(got.payment.status, inOrder.payment.status);
          // Money to return is decided the same way. (Whether a success is also labelled "late" can
          // differ: a provider that closed early and was then paid before our expiry looks on time
          // when its "paid" report comes first. Either way the payment succeeded.)
          const refund = (r: ReturnType<typeof deliver>) => r.payment.latePayment?.resolution === 'refund_required';
          assert.equal(refund(got), refund(inOrder));
          assert.equal(got.attempt.providerSequence, reports.length + 1, 'the newest report is the one that counts');
          for (const type of new Set(got.events)) {
            // A partial payment may be reported more than once (each new amount); nothing else is.
            if (type !== 'payment.partially_paid') assert.equal(got.events.filter((e) => e === type).length, 1, type);
          }
          assert.equal(got.payment.version, 2 + got.events.length);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('the same report twice: the second is stale', () => {
    fc.assert(
      fc.property(historyArb, policyArb, (reports, policy) => {
        const once = deliver(reports, policy);
        const twice = deliver(
          reports.flatMap((r) => [r, r]),
          policy,
        );
        assert.deepEqual(twice.events, once.events);
        assert.deepEqual(twice.payment, once.payment);
      }),
    );
  });
});

describe('decideProviderUpdate (cases)', () => {
  const snap = (status: ProviderChargeStatus, extra: Partial<ChargeSnapshot> = {}): ChargeSnapshot => ({
    providerReference: 'sbva_x',
    attemptId: 'att_x',
    owner: { merchantId: 'mer_x', environment: 'sandbox', paymentId: 'pay_x' },
    status,
    amountMinor: AMOUNT,
    amountPaidMinor: status === 'paid' ? AMOUNT : 0n,
    currency: 'IDR',
    sequence: 2,
    paidAt: status === 'paid' ? new Date(T0 + 60_000) : null,
    failureCode: null,
    ...extra,
  });
  const decide = (p: Partial<Payment>, s: ChargeSnapshot, a: Partial<AttemptState> = {}, policy: LatePaymentPolicy = 'refund') =>
    decideProviderUpdate({
      payment: { ...payment(), ...p },
      attempt: { ...attempt(), ...a },
      snapshot: s,
      policy,
      acceptBlocked: false,
      now: new Date(T0 + 120_000),
    });

  it('waits while the payment is being created', () => {
    assert.equal(decide({ status: 'processing' }, snap('paid')).kind, 'defer');
  });

  it('records money on an attempt the payer never saw as a refund', () => {
    const d = decide({}, snap('paid'), { providerReference: null, status: 'failed' });
    assert.ok(d.kind === 'apply');
    assert.deepEqual(
      d.steps.map((s) => [s.event, s.after.status, s.after.latePayment?.reason]),
      [['payment.late_payment_received', 'pending', 'stray_attempt']],
    );
  });

  it('never turns a failed payment into a succeeded one', () => {
    const d = decide({ status: 'failed' }, snap('paid'), {}, 'accept');
    assert.ok(d.kind === 'apply');
    assert.equal(d.steps[0]?.after.status, 'failed');
    assert.equal(d.steps[0]?.after.latePayment?.reason, 'payment_failed');
  });

  it('ignores a contradiction (expired reported for a succeeded payment) but records the report', () => {
    const d = decide({ status: 'succeeded' }, snap('expired'));
    assert.ok(d.kind === 'apply');
    assert.deepEqual(d.steps, []);
    assert.equal(d.attempt.providerSequence, 2);
  });
});
