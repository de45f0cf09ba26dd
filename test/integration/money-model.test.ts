import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { verifyLedger } from '../../src/modules/ledger/ledger.ts';
import { canTransition, type PaymentStatus } from '../../src/modules/payments/payment-states.ts';
import { REFUND_TRANSITIONS, type RefundStatus } from '../../src/modules/refunds/refund-types.ts';
import type { ManualClock } from '../../src/lib/clock.ts';
import type { RefundFaultMode } from '../../src/sandbox/refund-book.ts';
import { TEST_OPERATOR, appForSuite, json, ref, type TestApp } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * Model-based property test of the money side (docs/money.md, "Invariants"): random sequences of
 * payments (created, paid — exactly or over —, failed, expired, settled, reversed), refunds (requested with
 * a provider behaviour, finished by notification or by the sync job), duplicate notifications,
 * idempotent retries and concurrent refund requests (interleaved by fast-check's scheduler), run
 * against the real API and the sandbox providers. After EVERY step:
 *
 * 1-3. the ledger verifies (each entry sums to zero per currency, every merchant × environment ×
 *      currency sums to zero, cached balances equal their postings);
 * 4.   per payment, succeeded + pending refunds ≤ what the payer paid, and `amount_refunded` is the
 *      succeeded refunds; refunds of late money (succeeded + pending) ≤ the late payment owed to
 *      the payer, and `owed_to_payers` is late money less those refunds (docs/money.md);
 * 5.   payment states only follow PAYMENT_TRANSITIONS (checked on the event trail) and refund states
 *      only REFUND_TRANSITIONS (checked on each observed change and on the refund's events);
 * 6.   the model's balances (pending, available, in flight) equal GET /balance; a settlement
 *      moves what is still pending of its payment to available, less the provider's fee;
 * 7.   checkouts (selected, gone back to, paid, paid late, expired): the model's status, never two
 *      live payments, a completed checkout collected exactly once with one `checkout.completed`.
 *
 * Each sequence gets a fresh merchant, so sequences cannot see each other. The seed is printed on
 * every run; replay one with MODEL_SEED=<seed>. MODEL_RUNS scales the number of sequences.
 */
const IDR_SCALE = 100n;
const SYNC_STEP_MS = 120_000;
const PENDING_REFUND_DELAY_MS = 90_000;

type Channel = 'bank' | 'ewallet' | 'counter';
const CONNECTOR = { bank: 'sandbox_bank', ewallet: 'sandbox_ewallet', counter: 'sandbox_counter' } as const;
/** The provider behaviour a refund request meets (sandbox `refund` faults; `none` = default). */
type RefundBehaviour = 'none' | Exclude<RefundFaultMode, 'timeout'>;

interface MPayment {
  id: string;
  channel: Channel;
  amountMinor: bigint;
  paidMinor: bigint;
  status: PaymentStatus;
  settled: boolean;
  /** A late payment owed back to the payer (paid after the payment was canceled); 0 when none. */
  lateMinor: bigint;
  reference: string;
  /** The checkout whose selection made it (docs/checkout.md), if any. */
  checkoutId?: string;
}
/** A checkout: its payments share its reference_no; one selection at a time through the API. */
interface MCheckout {
  id: string;
  secret: string;
  amountMinor: bigint;
  reference: string;
  status: 'open' | 'completed' | 'expired';
  payments: string[];
}
interface MRefund {
  id: string;
  paymentId: string;
  amountMinor: bigint;
  status: RefundStatus;
  /**
   * The balance its hold came from: pending before the payment settled, available after; `payer`
   * for a refund of late money (held from what is owed to payers).
   */
  heldFrom: 'pending' | 'available' | 'payer';
  outcome: 'succeeded' | 'failed';
  /** When the provider finishes it (model clock); null: whenever the provider gets it (after an outage). */
  dueAtMs: number | null;
}
interface MRequest {
  paymentId: string;
  key: string;
  body: Record<string, unknown>;
  status: number;
  text: string;
}
interface Model {
  payments: MPayment[];
  checkouts: MCheckout[];
  refunds: MRefund[];
  requests: MRequest[];
  pendingMinor: bigint;
  availableMinor: bigint;
  inFlightMinor: bigint;
  /** Late payments owed back to payers (GET /balance `owed_to_payers`). */
  owedMinor: bigint;
}
interface Real {
  t: TestApp;
  clock: ManualClock;
  key: string;
  merchantId: string;
  scheduler: fc.Scheduler | undefined;
}

const minorToJson = (minor: bigint): number => Number(minor) / Number(IDR_SCALE);
let keySeq = 0;
/** What the runs exercised (printed, and a floor is asserted so the model cannot silently go idle). */
const stats = {
  refunds: 0,
  succeeded: 0,
  failed: 0,
  reversals: 0,
  retries: 0,
  settlements: 0,
  refundsAfterSettlement: 0,
  concurrentAccepted: 0,
  concurrentRefused: 0,
  latePayments: 0,
  lateRefunds: 0,
  checkoutSelections: 0,
  checkoutCompletions: 0,
  checkoutExpiries: 0,
};
const newKey = () => `model-${process.pid}-${(keySeq += 1)}`;

const call = (r: Real, method: 'GET' | 'POST', url: string, body?: unknown, headers: Record<string, string> = {}) =>
  r.t.call(method, url, { key: r.key, ...(body === undefined ? {} : { body }), headers });

const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;

async function simulate(r: Real, p: MPayment, outcome: string, dup: boolean, amountMinor?: bigint): Promise<void> {
  if (dup) r.t.provider(CONNECTOR[p.channel]).faults.notifications = { mode: 'duplicate', remaining: 1 };
  const res = await call(r, 'POST', `/sandbox/payment/${p.id}/simulate`, {
    outcome,
    ...(amountMinor === undefined ? {} : { amount: minorToJson(amountMinor) }),
  });
  assert.equal(res.statusCode, 202, res.body);
  await r.t.deliverNotifications();
}

/** What is still refundable of a payment by the model: of what it captured, or of its late money. */
const refundable = (m: Model, p: MPayment, late = false): bigint =>
  (late ? p.lateMinor : p.paidMinor) -
  m.refunds
    .filter((x) => x.paymentId === p.id && x.status !== 'failed' && (x.heldFrom === 'payer') === late)
    .reduce((s, x) => s + x.amountMinor, 0n);

/** Records a refund the API accepted: the hold moves money from pending to in flight. */
function acceptRefund(
  m: Model,
  res: { id: string; status: RefundStatus },
  p: MPayment,
  amount: bigint,
  b: RefundBehaviour,
  nowMs: number,
  late = false,
) {
  const refund: MRefund = {
    id: res.id,
    paymentId: p.id,
    amountMinor: amount,
    status: 'pending',
    heldFrom: late ? 'payer' : p.settled ? 'available' : 'pending',
    outcome: b === 'fail' || b === 'decline' ? 'failed' : 'succeeded',
    dueAtMs: b === 'error' ? null : b === 'pending' ? nowMs + PENDING_REFUND_DELAY_MS : nowMs,
  };
  m.refunds.push(refund);
  stats.refunds += 1;
  if (late) {
    stats.lateRefunds += 1;
    m.owedMinor -= amount;
  } else if (p.settled) {
    stats.refundsAfterSettlement += 1;
    m.availableMinor -= amount;
  } else {
    m.pendingMinor -= amount;
  }
  m.inFlightMinor += amount;
  if (res.status !== 'pending') finishRefund(m, refund, res.status, nowMs);
}

function finishRefund(m: Model, refund: MRefund, status: RefundStatus, nowMs: number): void {
  assert.ok(REFUND_TRANSITIONS[refund.status].includes(status), `refund ${refund.id}: ${refund.status} -> ${status}`);
  assert.equal(status, refund.outcome, `refund ${refund.id} ended ${status}, the provider was to make it ${refund.outcome}`);
  if (refund.dueAtMs !== null) assert.ok(refund.dueAtMs <= nowMs, `refund ${refund.id} finished before the provider did`);
  refund.status = status;
  stats[status === 'succeeded' ? 'succeeded' : 'failed'] += 1;
  m.inFlightMinor -= refund.amountMinor;
  const payment = m.payments.find((p) => p.id === refund.paymentId);
  // A failed refund's hold goes back to the merchant — to available once the payment has settled
  // (its pending part moved there) — unless the payment was reversed since (then the provider
  // keeps it, like the rest of the payment).
  if (status === 'failed' && refund.heldFrom === 'payer') {
    // Late money a refund could not return is owed to the payer again.
    m.owedMinor += refund.amountMinor;
  } else if (status === 'failed' && payment?.status !== 'reversed') {
    if (payment?.settled === true) m.availableMinor += refund.amountMinor;
    else m.pendingMinor += refund.amountMinor;
  }
}

/** Reads what changed on the refunds (a notification, a sync), checks it is allowed, follows it. */
async function observeRefunds(m: Model, r: Real): Promise<void> {
  const rows = await r.t.testStore.store.query<{ id: string; status: RefundStatus }>(
    'SELECT id, status FROM refunds WHERE merchant_id = $1',
    [r.merchantId],
  );
  const nowMs = r.t.clock.now().getTime();
  assert.equal(rows.length, m.refunds.length, 'every refund in the database is one the model knows');
  for (const row of rows) {
    const refund = m.refunds.find((x) => x.id === row.id);
    assert.ok(refund, `unknown refund ${row.id}`);
    if (row.status !== refund.status) finishRefund(m, refund, row.status, nowMs);
  }
}

const PAYMENT_EVENT_STATUS: Readonly<Record<string, PaymentStatus>> = {
  'payment.pending': 'pending',
  'payment.succeeded': 'succeeded',
  'payment.failed': 'failed',
  'payment.expired': 'expired',
  'payment.canceled': 'canceled',
  'payment.reversed': 'reversed',
};

/** Off while a sequence's setup runs (checked once at its end). */
let checking = true;

async function checkInvariants(m: Model, r: Real): Promise<void> {
  if (!checking) return;
  await observeRefunds(m, r);
  const store = r.t.testStore.store;
  // 1-3: the ledger of this merchant verifies.
  assert.deepEqual(await verifyLedger(store, { merchantId: r.merchantId, environment: 'sandbox' }), []);
  // 4: refunds within what was paid; amount_refunded is the succeeded ones.
  const perPayment = await store.query<{
    id: string;
    status: PaymentStatus;
    paid: bigint;
    refunded: bigint;
    held: bigint;
    done: bigint;
    late_held: bigint;
    late: bigint | string | null;
    late_resolution: string | null;
  }>(
    `SELECT p.id, p.status, p.amount_paid_minor AS paid, p.amount_refunded_minor AS refunded,
       coalesce(sum(r.amount_minor) FILTER (WHERE r.status <> 'failed' AND r.held_from <> 'payer_refund_due'), 0)::bigint AS held,
       coalesce(sum(r.amount_minor) FILTER (WHERE r.status = 'succeeded' AND r.held_from <> 'payer_refund_due'), 0)::bigint AS done,
       coalesce(sum(r.amount_minor) FILTER (WHERE r.status <> 'failed' AND r.held_from = 'payer_refund_due'), 0)::bigint AS late_held,
       (p.late_payment ->> 'amount_minor')::bigint AS late,
       p.late_payment ->> 'resolution' AS late_resolution
     FROM payments p LEFT JOIN refunds r ON r.payment_id = p.id
     WHERE p.merchant_id = $1 AND p.environment = 'sandbox' GROUP BY p.id`,
    [r.merchantId],
  );
  for (const row of perPayment) {
    assert.ok(row.held <= row.paid, `payment ${row.id}: refunds ${row.held} > paid ${row.paid}`);
    assert.equal(row.refunded, row.done, `payment ${row.id}: amount_refunded`);
    const mp = m.payments.find((p) => p.id === row.id);
    assert.ok(mp, `unknown payment ${row.id}`);
    assert.equal(row.status, mp.status, `payment ${row.id} status`);
    assert.equal(row.paid, mp.paidMinor, `payment ${row.id} paid`);
    // 4b: late money owed to the payer, and refunds of it within it.
    const late = row.late_resolution === 'refund_required' && row.late !== null ? BigInt(row.late) : 0n;
    assert.equal(late, mp.lateMinor, `payment ${row.id} late money`);
    assert.ok(row.late_held <= late, `payment ${row.id}: late refunds ${row.late_held} > late ${late}`);
  }
  // 5: state trails.
  const events = await store.query<{ object_id: string; object_type: string; type: string }>(
    `SELECT object_id, object_type, type FROM events WHERE merchant_id = $1 ORDER BY object_id, object_version`,
    [r.merchantId],
  );
  const trail = new Map<string, PaymentStatus>();
  const refundEvents = new Map<string, string[]>();
  for (const e of events) {
    if (e.object_type === 'refund') {
      refundEvents.set(e.object_id, [...(refundEvents.get(e.object_id) ?? []), e.type]);
      continue;
    }
    const to = PAYMENT_EVENT_STATUS[e.type];
    if (e.object_type !== 'payment' || to === undefined) continue;
    const from = trail.get(e.object_id) ?? 'processing';
    assert.ok(canTransition(from, to), `payment ${e.object_id}: ${from} -> ${to} (${e.type})`);
    trail.set(e.object_id, to);
  }
  for (const refund of m.refunds) {
    const expected = refund.status === 'pending' ? [] : [`refund.${refund.status}`];
    assert.deepEqual(refundEvents.get(refund.id) ?? [], expected, `refund ${refund.id} events`);
  }
  // 7: checkouts (docs/checkout.md): the model's status; never more than one live payment; a
  // completed checkout collected exactly once (one succeeded payment of it, not counting late
  // money owed back), with exactly one checkout.completed; an expired one at most once, with one
  // checkout.expired.
  const checkouts = await store.query<{ id: string; status: string; completed_payment_id: string | null }>(
    `SELECT id, status, completed_payment_id FROM checkouts WHERE merchant_id = $1 AND environment = 'sandbox'`,
    [r.merchantId],
  );
  for (const row of checkouts) {
    const mc = m.checkouts.find((c) => c.id === row.id);
    assert.ok(mc, `unknown checkout ${row.id}`);
    assert.equal(row.status, mc.status, `checkout ${row.id} status`);
    const mine = m.payments.filter((p) => p.checkoutId === row.id);
    assert.ok(mine.filter((p) => p.status === 'pending').length <= 1, `checkout ${row.id}: two live payments`);
    const collected = mine.filter((p) => p.status === 'succeeded' || p.status === 'reversed');
    // Completed: exactly once. Open: never (a success completes it). Expired: at most once — a
    // payment of it paid late after the expiry is accepted when no other payment holds the
    // reference (the money is the merchant's; docs/checkout.md section 4), and any later one is
    // owed back to its payer.
    const allowed = row.status === 'completed' ? [1] : row.status === 'expired' ? [0, 1] : [0];
    assert.ok(allowed.includes(collected.length), `checkout ${row.id} (${row.status}) collected ${collected.length} times`);
    if (row.status === 'completed') assert.equal(row.completed_payment_id, collected[0]?.id);
    const closing = events.filter((e) => e.object_id === row.id).map((e) => e.type);
    assert.deepEqual(closing, row.status === 'open' ? [] : [`checkout.${row.status}`], `checkout ${row.id} events`);
  }
  assert.equal(checkouts.length, m.checkouts.length, 'checkouts');
  // 6: balances.
  const res = await call(r, 'GET', '/balance');
  assert.equal(res.statusCode, 200, res.body);
  const line = (json(res)['balances'] as Record<string, unknown>[]).find((b) => b['currency'] === 'IDR');
  assert.equal(line?.['pending'] ?? 0, minorToJson(m.pendingMinor), 'pending balance');
  assert.equal(line?.['available'] ?? 0, minorToJson(m.availableMinor), 'available balance');
  assert.equal(line?.['refunds_in_flight'] ?? 0, minorToJson(m.inFlightMinor), 'refunds in flight');
  assert.equal(line?.['owed_to_payers'] ?? 0, minorToJson(m.owedMinor), 'owed to payers');
}

// ── commands ───────────────────────────────────────────────────────────────────────────────

type Cmd = fc.AsyncCommand<Model, Real>;

class CreatePayment implements Cmd {
  constructor(
    readonly channel: Channel,
    readonly thousands: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const amountMinor = BigInt(this.thousands) * 1_000n * IDR_SCALE;
    const reference = ref('model');
    const res = await call(r, 'POST', '/payment/create', {
      amount: minorToJson(amountMinor),
      currency: 'IDR',
      reference_no: reference,
      channel: this.channel,
    });
    assert.equal(res.statusCode, 201, res.body);
    m.payments.push({
      id: String(json(res)['id']),
      channel: this.channel,
      amountMinor,
      paidMinor: 0n,
      status: 'pending',
      settled: false,
      lateMinor: 0n,
      reference,
    });
    await checkInvariants(m, r);
  }
  toString = () => `create(${this.channel}, ${this.thousands}k)`;
}

/** The provider reports the payment paid (bank: sometimes more than the amount), failed or expired. */
class ProviderOutcome implements Cmd {
  constructor(
    readonly index: number,
    readonly outcome: 'succeeded' | 'over' | 'failed' | 'expired',
    readonly dup: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.payments.some((p) => p.status === 'pending');
  async run(m: Model, r: Real) {
    const p = pick(
      m.payments.filter((x) => x.status === 'pending'),
      this.index,
    );
    const over = this.outcome === 'over' && p.channel === 'bank';
    const paidMinor = over ? p.amountMinor + 1_000n * IDR_SCALE : p.amountMinor;
    await simulate(r, p, this.outcome === 'over' ? 'succeeded' : this.outcome, this.dup, over ? paidMinor : undefined);
    if (this.outcome === 'succeeded' || this.outcome === 'over') {
      p.status = 'succeeded';
      p.paidMinor = paidMinor;
      m.pendingMinor += paidMinor;
      completeCheckoutOf(m, p);
    } else {
      p.status = this.outcome;
    }
    await checkInvariants(m, r);
  }
  toString = () => `provider(#${this.index}, ${this.outcome}${this.dup ? ', duplicated' : ''})`;
}

class Reverse implements Cmd {
  constructor(
    readonly index: number,
    readonly dup: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.payments.some((p) => p.status === 'succeeded');
  async run(m: Model, r: Real) {
    const p = pick(
      m.payments.filter((x) => x.status === 'succeeded'),
      this.index,
    );
    // The reversal takes what is neither refunded nor held for a pending refund.
    const rest = refundable(m, p);
    await simulate(r, p, 'reversed', this.dup);
    p.status = 'reversed';
    stats.reversals += 1;
    if (p.settled) m.availableMinor -= rest;
    else m.pendingMinor -= rest;
    await checkInvariants(m, r);
  }
  toString = () => `reverse(#${this.index}${this.dup ? ', duplicated' : ''})`;
}

/** A refund request: whole rest, a share of the payment, or one minor unit too much. */
class RequestRefund implements Cmd {
  constructor(
    readonly index: number,
    readonly amount: { kind: 'rest' } | { kind: 'percent'; percent: number } | { kind: 'too_much' },
    readonly behaviour: RefundBehaviour,
  ) {}
  check = (m: Readonly<Model>) => m.payments.length > 0;
  async run(m: Model, r: Real) {
    const p = pick(m.payments, this.index);
    // No source in the body: a succeeded payment refunds captured money, any other its late money.
    const late = p.status !== 'succeeded';
    const left = refundable(m, p, late);
    const amountMinor =
      this.amount.kind === 'rest'
        ? null
        : this.amount.kind === 'too_much'
          ? left + 1n
          : ((late ? p.lateMinor : p.paidMinor) * BigInt(this.amount.percent)) / 100n || 1n;
    const body = amountMinor === null ? {} : { amount: minorToJson(amountMinor) };
    const provider = r.t.provider(CONNECTOR[p.channel]);
    if (this.behaviour !== 'none') {
      provider.faults.refund = {
        mode: this.behaviour,
        remaining: 1,
        ...(this.behaviour === 'pending' ? { delayMs: PENDING_REFUND_DELAY_MS } : {}),
      };
    }
    const key = newKey();
    const res = await call(r, 'POST', `/payment/${p.id}/refund`, body, { 'idempotency-key': key });
    delete provider.faults.refund;
    const effective = amountMinor ?? left;
    if (late && p.lateMinor === 0n) {
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(json(res)['code'], 'payment_state_conflict');
    } else if (p.channel === 'counter') {
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(json(res)['code'], 'refund_not_supported');
    } else if (effective <= 0n || effective > left) {
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(json(res)['code'], 'refund_exceeds_captured');
    } else {
      assert.equal(res.statusCode, 201, res.body);
      const out = json(res) as { id: string; status: RefundStatus; amount: number };
      assert.equal(out.amount, minorToJson(effective));
      assert.equal(out.status, this.behaviour === 'decline' ? 'failed' : 'pending');
      acceptRefund(m, out, p, effective, this.behaviour, r.t.clock.now().getTime(), late);
      m.requests.push({ paymentId: p.id, key, body, status: res.statusCode, text: res.body });
    }
    await checkInvariants(m, r);
  }
  toString = () =>
    `refund(#${this.index}, ${this.amount.kind === 'percent' ? `${this.amount.percent}%` : this.amount.kind}, ${this.behaviour})`;
}

/** The same request with the same Idempotency-Key again: the same answer, nothing new. */
class RetryRefund implements Cmd {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.requests.length > 0;
  async run(m: Model, r: Real) {
    const q = pick(m.requests, this.index);
    const res = await call(r, 'POST', `/payment/${q.paymentId}/refund`, q.body, { 'idempotency-key': q.key });
    assert.equal(res.statusCode, q.status);
    assert.equal(res.body, q.text);
    assert.equal(res.headers['idempotent-replayed'], 'true');
    stats.retries += 1;
    await checkInvariants(m, r);
  }
  toString = () => `retry(#${this.index})`;
}

/** The providers send what is due (refunds due by now finish first). */
class DeliverNotifications implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    await r.t.deliverNotifications();
    await observeRefunds(m, r);
    const nowMs = r.t.clock.now().getTime();
    for (const x of m.refunds) {
      if (x.dueAtMs !== null && x.dueAtMs <= nowMs) assert.notEqual(x.status, 'pending', `refund ${x.id} is due`);
    }
    await checkInvariants(m, r);
  }
  toString = () => 'deliver';
}

/** Time passes without notifications; the refund sync job asks the providers. */
class SyncRefunds implements Cmd {
  check = () => true;
  async run(m: Model, r: Real) {
    r.clock.advance(SYNC_STEP_MS);
    await r.t.syncRefunds();
    await checkInvariants(m, r);
  }
  toString = () => 'advance+sync';
}

/** Several refund requests for one payment at once, started in an order the scheduler picks. */
class ConcurrentRefunds implements Cmd {
  constructor(
    readonly index: number,
    readonly percents: number[],
  ) {}
  check = (m: Readonly<Model>) => m.payments.some((p) => p.status === 'succeeded' && p.channel !== 'counter');
  async run(m: Model, r: Real) {
    const s = r.scheduler;
    assert.ok(s, 'interleaved runs only');
    const p = pick(
      m.payments.filter((x) => x.status === 'succeeded' && x.channel !== 'counter'),
      this.index,
    );
    const left = refundable(m, p);
    const amounts = this.percents.map((pc) => (p.paidMinor * BigInt(pc)) / 100n || 1n);
    const answers = Promise.all(
      amounts.map((a) =>
        s
          .schedule(Promise.resolve(), `start ${minorToJson(a)}`)
          .then(() => call(r, 'POST', `/payment/${p.id}/refund`, { amount: minorToJson(a) }, { 'idempotency-key': newKey() })),
      ),
    );
    await s.waitAll();
    const results = await answers;
    const accepted = results.flatMap((res, i) => (res.statusCode === 201 ? [{ res, amount: amounts[i] as bigint }] : []));
    const acceptedSum = accepted.reduce((sum, a) => sum + a.amount, 0n);
    assert.ok(acceptedSum <= left, `accepted ${acceptedSum} > refundable ${left}`);
    results.forEach((res, i) => {
      if (res.statusCode === 201) return;
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(json(res)['code'], 'refund_exceeds_captured');
      // Refused only if it did not fit beside the ones accepted before it (a subset of all accepted).
      assert.ok((amounts[i] as bigint) > left - acceptedSum, `refused ${amounts[i]} although it fitted`);
    });
    stats.concurrentAccepted += accepted.length;
    stats.concurrentRefused += results.length - accepted.length;
    const nowMs = r.t.clock.now().getTime();
    for (const a of accepted) acceptRefund(m, json(a.res) as { id: string; status: RefundStatus }, p, a.amount, 'none', nowMs);
    await checkInvariants(m, r);
  }
  toString = () => `concurrent(#${this.index}, ${this.percents.join('%,')}%)`;
}

/**
 * The payer pays a payment that already ended: after `canceled` the money is owed back to the
 * payer (merchants here keep the default late-payment policy, refund); after `expired` (reported
 * by the provider before our expiry) it was paid on time, so it is accepted.
 */
class LatePayment implements Cmd {
  constructor(
    readonly index: number,
    readonly dup: boolean,
  ) {}
  check = (m: Readonly<Model>) => m.payments.some(lateCandidate);
  async run(m: Model, r: Real) {
    const p = pick(m.payments.filter(lateCandidate), this.index);
    await simulate(r, p, 'succeeded', this.dup);
    stats.latePayments += 1;
    // Canceled: the payer is owed it back. Expired: accepted, unless a newer live payment (of the
    // same checkout) holds its reference_no — then the payer is owed it back too.
    const referenceTaken = m.payments.some(
      (q) => q !== p && q.reference === p.reference && (q.status === 'pending' || q.status === 'succeeded'),
    );
    if (p.status === 'canceled' || referenceTaken) {
      p.lateMinor = p.amountMinor;
      m.owedMinor += p.amountMinor;
    } else {
      p.status = 'succeeded';
      p.paidMinor = p.amountMinor;
      m.pendingMinor += p.amountMinor;
      completeCheckoutOf(m, p);
    }
    await checkInvariants(m, r);
  }
  toString = () => `late(#${this.index}${this.dup ? ', duplicated' : ''})`;
}
const lateCandidate = (p: MPayment) => (p.status === 'canceled' && p.lateMinor === 0n) || p.status === 'expired';

/** A payment that succeeds completes its checkout if that is still open (in the same transaction). */
function completeCheckoutOf(m: Model, p: MPayment): void {
  const c = m.checkouts.find((x) => x.id === p.checkoutId);
  if (c?.status !== 'open') return;
  c.status = 'completed';
  stats.checkoutCompletions += 1;
}

/**
 * The payer chooses a method on a checkout (a new one, or one of the sequence's, which may be
 * completed or expired: then 409 and nothing changes): the previous pending payment of the
 * checkout is canceled and a new pending payment made with the checkout's reference_no.
 */
class CheckoutSelect implements Cmd {
  constructor(
    readonly index: number,
    readonly fresh: boolean,
    readonly channel: Channel,
    readonly thousands: number,
  ) {}
  check = () => true;
  async run(m: Model, r: Real) {
    let c = this.fresh || m.checkouts.length === 0 ? undefined : pick(m.checkouts, this.index);
    if (c === undefined) {
      const amountMinor = BigInt(this.thousands) * 1_000n * IDR_SCALE;
      const reference = ref('model-cs');
      const res = await call(r, 'POST', '/checkout/create', {
        amount: minorToJson(amountMinor),
        currency: 'IDR',
        reference_no: reference,
      });
      assert.equal(res.statusCode, 201, res.body);
      const body = json(res);
      c = { id: String(body['id']), secret: String(body['client_secret']), amountMinor, reference, status: 'open', payments: [] };
      m.checkouts.push(c);
    }
    const res = await call(r, 'POST', `/checkout/${c.id}/select`, { client_secret: c.secret, channel: this.channel });
    if (c.status !== 'open') {
      assert.equal(res.statusCode, 409, res.body);
      assert.equal(json(res)['code'], 'checkout_not_open');
    } else {
      assert.equal(res.statusCode, 200, res.body);
      const previous = m.payments.find((p) => p.id === c.payments.at(-1));
      if (previous?.status === 'pending') previous.status = 'canceled';
      const payment = json(res)['payment'] as Record<string, unknown>;
      const id = String(payment['id']);
      c.payments.push(id);
      m.payments.push({
        id,
        channel: this.channel,
        amountMinor: c.amountMinor,
        paidMinor: 0n,
        status: 'pending',
        settled: false,
        lateMinor: 0n,
        reference: c.reference,
        checkoutId: c.id,
      });
      stats.checkoutSelections += 1;
    }
    await checkInvariants(m, r);
  }
  toString = () => `checkout-select(${this.fresh ? 'new' : `#${this.index}`}, ${this.channel})`;
}

/** The merchant expires an open checkout: its pending payment is canceled. */
class CheckoutExpire implements Cmd {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.checkouts.some((c) => c.status === 'open');
  async run(m: Model, r: Real) {
    const c = pick(
      m.checkouts.filter((x) => x.status === 'open'),
      this.index,
    );
    const res = await call(r, 'POST', `/checkout/${c.id}/expire`, {});
    assert.equal(res.statusCode, 200, res.body);
    c.status = 'expired';
    for (const p of m.payments) if (p.checkoutId === c.id && p.status === 'pending') p.status = 'canceled';
    stats.checkoutExpiries += 1;
    await checkInvariants(m, r);
  }
  toString = () => `checkout-expire(#${this.index})`;
}

/** The merchant cancels a pending payment. */
class Cancel implements Cmd {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.payments.some((p) => p.status === 'pending');
  async run(m: Model, r: Real) {
    const p = pick(
      m.payments.filter((x) => x.status === 'pending'),
      this.index,
    );
    const res = await call(r, 'POST', `/payment/${p.id}/cancel`, {});
    assert.equal(res.statusCode, 200, res.body);
    p.status = 'canceled';
    await checkInvariants(m, r);
  }
  toString = () => `cancel(#${this.index})`;
}

/**
 * The provider settles a succeeded payment (sandbox simulate `settled`, ingested before it
 * answers): what is still pending of it — what was paid, less refunds held from pending and not
 * failed — moves to available, less the provider's fee on the gross (its own fee schedule).
 */
class Settle implements Cmd {
  constructor(readonly index: number) {}
  check = (m: Readonly<Model>) => m.payments.some((p) => p.status === 'succeeded' && !p.settled);
  async run(m: Model, r: Real) {
    const p = pick(
      m.payments.filter((x) => x.status === 'succeeded' && !x.settled),
      this.index,
    );
    const res = await call(r, 'POST', `/sandbox/payment/${p.id}/simulate`, { outcome: 'settled' });
    assert.equal(res.statusCode, 202, res.body);
    const fee = r.t.provider(CONNECTOR[p.channel]).dialect.feeMinor(p.paidMinor);
    const stillPending =
      p.paidMinor -
      m.refunds
        .filter((x) => x.paymentId === p.id && x.heldFrom === 'pending' && x.status !== 'failed')
        .reduce((sum, x) => sum + x.amountMinor, 0n);
    p.settled = true;
    stats.settlements += 1;
    m.pendingMinor -= stillPending;
    m.availableMinor += stillPending - fee;
    const settled = json(await call(r, 'GET', `/payment/${p.id}`));
    assert.equal(settled['fee'], minorToJson(fee), `payment ${p.id} fee`);
    assert.equal(settled['net'], minorToJson(p.paidMinor - fee), `payment ${p.id} net`);
    assert.equal(typeof settled['settlement_id'], 'string');
    await checkInvariants(m, r);
  }
  toString = () => `settle(#${this.index})`;
}

const createArb = fc
  .record({ channel: fc.constantFrom<Channel>('bank', 'bank', 'ewallet', 'counter'), k: fc.integer({ min: 10, max: 500 }) })
  .map((x) => new CreatePayment(x.channel, x.k));
const sequentialCommandsUnweighted = [
  createArb,
  fc
    .tuple(
      fc.nat(),
      fc.constantFrom('succeeded', 'succeeded', 'over', 'failed', 'expired') as fc.Arbitrary<ProviderOutcome['outcome']>,
      fc.boolean(),
    )
    .map(([i, o, d]) => new ProviderOutcome(i, o, d)),
  fc.tuple(fc.nat(), fc.boolean()).map(([i, d]) => new Reverse(i, d)),
  fc
    .tuple(
      fc.nat(),
      fc.oneof(
        { weight: 2, arbitrary: fc.constant({ kind: 'rest' as const }) },
        { weight: 5, arbitrary: fc.integer({ min: 1, max: 100 }).map((percent) => ({ kind: 'percent' as const, percent })) },
        { weight: 1, arbitrary: fc.constant({ kind: 'too_much' as const }) },
      ),
      fc.constantFrom<RefundBehaviour>('none', 'none', 'pending', 'fail', 'decline', 'error'),
    )
    .map(([i, a, b]) => new RequestRefund(i, a, b)),
  fc.nat().map((i) => new RetryRefund(i)),
  fc.constant(new DeliverNotifications()),
  fc.constant(new SyncRefunds()),
  fc.nat().map((i) => new Settle(i)),
  fc.tuple(fc.nat(), fc.boolean()).map(([i, d]) => new LatePayment(i, d)),
  fc.nat().map((i) => new Cancel(i)),
  fc
    .record({
      i: fc.nat(),
      fresh: fc.boolean(),
      channel: fc.constantFrom<Channel>('bank', 'ewallet', 'counter'),
      k: fc.integer({ min: 10, max: 500 }),
    })
    .map((x) => new CheckoutSelect(x.i, x.fresh, x.channel, x.k)),
  fc.nat().map((i) => new CheckoutExpire(i)),
];
/** fc.commands picks uniformly among its arbitraries: refunds and their outcomes come more often. */
const [
  createCmd,
  outcomeCmd,
  reverseCmd,
  refundCmd,
  retryCmd,
  deliverCmd,
  syncCmd,
  settleCmd,
  lateCmd,
  cancelCmd,
  checkoutSelectCmd,
  checkoutExpireCmd,
] = sequentialCommandsUnweighted as unknown as [
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
  fc.Arbitrary<Cmd>,
];
const sequentialCommands = [
  createCmd,
  outcomeCmd,
  outcomeCmd,
  reverseCmd,
  refundCmd,
  refundCmd,
  refundCmd,
  retryCmd,
  deliverCmd,
  deliverCmd,
  syncCmd,
  settleCmd,
  lateCmd,
  cancelCmd,
  checkoutSelectCmd,
  checkoutSelectCmd,
  checkoutExpireCmd,
];
const interleavedCommands = [
  ...sequentialCommands,
  fc
    .tuple(fc.nat(), fc.array(fc.integer({ min: 10, max: 70 }), { minLength: 2, maxLength: 4 }))
    .map(([i, p]) => new ConcurrentRefunds(i, p)),
];

const MAX_COMMANDS = 8;
const totalRuns = Number(process.env['MODEL_RUNS'] ?? 500);
const seed = Number(process.env['MODEL_SEED'] ?? Math.floor(Math.random() * 2 ** 31));

describe(`money model (${TEST_STORE})`, () => {
  // The sandbox's own T+1 schedule stays out: settlements happen when the Settle command says.
  const ctx = appForSuite({ settlementDelayMs: null });
  console.log(`# money model: seed ${seed} (replay with MODEL_SEED=${seed}), ${totalRuns} sequences`);

  const setup = async (scheduler: fc.Scheduler | undefined) => {
    const made = await ctx.t.merchants.createMerchant(`Model ${(keySeq += 1)}`, TEST_OPERATOR);
    const real: Real = { t: ctx.t, clock: ctx.clock, key: made.sandbox.secret, merchantId: made.merchant.id, scheduler };
    const model: Model = {
      payments: [],
      checkouts: [],
      refunds: [],
      requests: [],
      pendingMinor: 0n,
      availableMinor: 0n,
      inFlightMinor: 0n,
      owedMinor: 0n,
    };
    // Every sequence starts with something to refund, a paid bank payment (the commands create,
    // pay, fail, expire, cancel, pay late and reverse more) …
    checking = false;
    await new CreatePayment('bank', 120).run(model, real);
    await new ProviderOutcome(0, 'succeeded', false).run(model, real);
    // … and late money to give back: a payment canceled, then paid.
    await new CreatePayment('ewallet', 80).run(model, real);
    await new Cancel(0).run(model, real);
    await new LatePayment(0, false).run(model, real);
    checking = true;
    await checkInvariants(model, real);
    return { model, real };
  };
  const resetFaults = () => {
    for (const c of Object.values(CONNECTOR)) ctx.t.provider(c).faults = {};
  };

  it('sequential: every step keeps the invariants', async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.commands(sequentialCommands, { maxCommands: MAX_COMMANDS }), async (cmds) => {
        resetFaults();
        const { model, real } = await setup(undefined);
        await fc.asyncModelRun(() => ({ model, real }), cmds);
      }),
      { seed, numRuns: Math.ceil(totalRuns * 0.8) },
    );
    console.log(`# money model: ${Math.ceil(totalRuns * 0.8)} sequential sequences in ${Date.now() - started} ms`);
  });

  it('interleaved: concurrent refund requests in scheduler-chosen orders keep the invariants', async () => {
    const started = Date.now();
    await fc.assert(
      fc.asyncProperty(fc.scheduler(), fc.commands(interleavedCommands, { maxCommands: MAX_COMMANDS }), async (s, cmds) => {
        resetFaults();
        const { model, real } = await setup(s);
        await fc.asyncModelRun(() => ({ model, real }), cmds);
      }),
      { seed: seed + 1, numRuns: Math.floor(totalRuns * 0.2) },
    );
    console.log(`# money model: ${Math.floor(totalRuns * 0.2)} interleaved sequences in ${Date.now() - started} ms`);
  });

  it('exercised every kind of step', () => {
    console.log(`# money model: ${JSON.stringify(stats)}`);
    if (totalRuns < 100) return; // a small MODEL_RUNS is for a quick look, not for coverage
    for (const [name, count] of Object.entries(stats)) assert.ok(count > 0, `no ${name} in ${totalRuns} sequences`);
  });
});
