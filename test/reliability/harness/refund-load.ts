import { call } from './api-client.ts';
import { CreateLedger, type QueryFn } from './create-load.ts';
import type { WebhookReceiver } from './webhooks.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Refund load that behaves like a careful client (the create load's counterpart): take an
 * acknowledged payment, have the sandbox payer pay it, wait until it is `succeeded`, then refund
 * it in full with an Idempotency-Key of its own. Anything whose outcome is unknown (refused, reset,
 * timeout, 503, 409 in progress, 429) is retried with the same key; every other answer is
 * recorded as a violation unless the step documents it.
 */
export class RefundLedger {
  /** refund key → refund id of the acknowledged (2xx) answer. */
  readonly acked = new Map<string, { refundId: string; paymentId: string }>();
  readonly violations: string[] = [];
  readonly statuses = new Map<string, number>();
  /** Payments this load took (whatever happened to them). */
  readonly taken = new Set<string>();
  /** Payments abandoned because a bounded wait ran out (reported, and judged by the caller). */
  readonly gaveUp: string[] = [];
  /** How long each payment took from the simulate's answer to `succeeded`. */
  readonly paidWaitsMs: number[] = [];

  count(label: string): void {
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
  }
  violation(message: string): void {
    if (this.violations.length < 50) this.violations.push(message);
  }
  summary(): string {
    const slowest = Math.max(0, ...this.paidWaitsMs);
    return `refunds acked ${this.acked.size} of ${this.taken.size} payments taken (gave up ${this.gaveUp.length}; slowest paid after ${slowest} ms); ${[...this.statuses.entries()].map(([k, v]) => `${k}: ${v}`).join(', ')}`;
  }
}

const retryable = (status: number, code: string | undefined) =>
  status === 503 || status === 429 || (status === 409 && code === 'idempotency_request_in_progress');

interface Step {
  status: number;
  code?: string;
  body: Record<string, unknown>;
}

/** Calls until an answer that is not "try again", within `deadlineMs`; undefined if none came. */
async function persist(
  ledger: RefundLedger,
  label: string,
  deadlineMs: number,
  send: () => ReturnType<typeof call>,
): Promise<Step | undefined> {
  const deadline = Date.now() + deadlineMs;
  while (Date.now() < deadline) {
    const res = await send();
    if (!res.ok) {
      ledger.count(`${label} network:${res.error}`);
      await pause(200);
      continue;
    }
    let body: Record<string, unknown> = {};
    try {
      body = res.json();
    } catch {
      ledger.violation(`${label}: ${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`);
    }
    const code = typeof body['code'] === 'string' ? body['code'] : undefined;
    ledger.count(`${label} ${res.status}${code === undefined ? '' : ` ${code}`}`);
    if (res.status >= 500 && res.status !== 503) ledger.violation(`${label}: ${res.status} ${res.text.slice(0, 200)}`);
    if (retryable(res.status, code)) {
      if (res.headers.get('retry-after') === null) ledger.violation(`${label}: ${res.status} without Retry-After`);
      await pause(250);
      continue;
    }
    return { status: res.status, ...(code === undefined ? {} : { code }), body };
  }
  return undefined;
}

/** Pays (sandbox simulate), waits for `succeeded`, refunds in full with key `rf-<payment id>`. */
export async function refundOne(baseUrl: string, apiKey: string, paymentId: string, ledger: RefundLedger): Promise<void> {
  ledger.taken.add(paymentId);
  const key = `rf-${paymentId}`;
  const paid = await persist(ledger, 'simulate', 30_000, () =>
    call(baseUrl, 'POST', `/sandbox/payment/${paymentId}/simulate`, {
      key: apiKey,
      body: { outcome: 'succeeded' },
      timeoutMs: 8_000,
    }),
  );
  // A retried simulate whose first try went through finds the payment no longer pending: 409.
  if (paid === undefined || (paid.status >= 300 && paid.status !== 409)) {
    if (paid !== undefined) ledger.violation(`simulate ${paymentId}: ${paid.status} ${JSON.stringify(paid.body).slice(0, 200)}`);
    ledger.gaveUp.push(paymentId);
    return;
  }
  // Bounded, but past a minute: a provider notification refused during a database outage comes
  // back with the provider's backoff (2, 4, 8, 16 s…), and one claimed by the notification job at
  // the moment the database went away stays leased for the job's 60 s lease (docs/reliability.md,
  // observations).
  const simulated = Date.now();
  const deadline = simulated + 90_000;
  for (;;) {
    const got = await call(baseUrl, 'GET', `/payment/${paymentId}`, { key: apiKey, timeoutMs: 5_000 });
    if (got.ok && got.status === 200 && got.json<{ status?: string }>().status === 'succeeded') {
      ledger.paidWaitsMs.push(Date.now() - simulated);
      break;
    }
    if (got.ok && got.status >= 500 && got.status !== 503) ledger.violation(`GET ${paymentId}: ${got.status}`);
    if (Date.now() > deadline) {
      ledger.gaveUp.push(paymentId);
      return;
    }
    await pause(200);
  }
  const refund = await persist(ledger, 'refund', 60_000, () =>
    call(baseUrl, 'POST', `/payment/${paymentId}/refund`, { key: apiKey, headers: { 'idempotency-key': key }, timeoutMs: 8_000 }),
  );
  if (refund === undefined) {
    ledger.gaveUp.push(paymentId);
    return;
  }
  const id = refund.body['id'];
  if (refund.status >= 200 && refund.status < 300 && typeof id === 'string') {
    const previous = ledger.acked.get(key);
    if (previous !== undefined && previous.refundId !== id) ledger.violation(`key ${key} acknowledged as two refunds`);
    ledger.acked.set(key, { refundId: id, paymentId });
  } else {
    ledger.violation(`refund ${paymentId}: ${refund.status} ${JSON.stringify(refund.body).slice(0, 200)}`);
  }
}

/** `workers` careful refunders over the create ledger's acknowledged payments, until `stop()`. */
export function startRefundLoad(o: { baseUrl: () => string; apiKey: string; creates: CreateLedger; workers: number }): {
  ledger: RefundLedger;
  stop(): Promise<void>;
} {
  const ledger = new RefundLedger();
  let stopped = false;
  const worker = async () => {
    while (!stopped) {
      const next = [...o.creates.acked.values()].find((id) => !ledger.taken.has(id));
      if (next === undefined) {
        await pause(100);
        continue;
      }
      await refundOne(o.baseUrl(), o.apiKey, next, ledger);
    }
  };
  const running = Promise.all(Array.from({ length: o.workers }, () => worker()));
  return {
    ledger,
    async stop() {
      stopped = true;
      await running;
    },
  };
}

/**
 * The create ledger without the payments the refund load took: `checkAcknowledged` expects every
 * acknowledged payment still `pending`; the taken ones are checked by `checkRefunds`.
 */
export function untouchedCreates(creates: CreateLedger, refunds: RefundLedger): CreateLedger {
  const copy = new CreateLedger();
  for (const [key, id] of creates.acked) if (!refunds.taken.has(id)) copy.acked.set(key, id);
  return copy;
}

/** In the store: every acknowledged refund exists for its payment, and no payment has two refunds. */
export async function checkRefunds(query: QueryFn, ledger: RefundLedger): Promise<string[]> {
  const problems: string[] = [];
  const paymentIds = [...ledger.taken];
  const payments = await query(`SELECT id FROM payments WHERE id = ANY($1)`, [paymentIds]);
  if (payments.length !== paymentIds.length)
    problems.push(`${paymentIds.length - payments.length} refunded payments are missing`);
  const rows = await query(`SELECT id, payment_id FROM refunds WHERE payment_id = ANY($1)`, [paymentIds]);
  const perPayment = new Map<string, string[]>();
  for (const r of rows) {
    const list = perPayment.get(String(r['payment_id'])) ?? [];
    list.push(String(r['id']));
    perPayment.set(String(r['payment_id']), list);
  }
  for (const [paymentId, ids] of perPayment) {
    if (ids.length > 1) problems.push(`payment ${paymentId} has ${ids.length} refunds: ${ids.join(', ')}`);
  }
  for (const [key, { refundId, paymentId }] of ledger.acked) {
    if (!(perPayment.get(paymentId) ?? []).includes(refundId))
      problems.push(`acknowledged refund ${refundId} (key ${key}) is missing`);
  }
  return problems;
}

/**
 * Every event committed for `merchantId` since `since` (the endpoint's registration) reaches the receiver (at least once), within `waitMs`.
 * Returns the ids still undelivered at the deadline and how many events there were.
 */
export async function undeliveredEvents(
  query: QueryFn,
  merchantId: string,
  receiver: WebhookReceiver,
  waitMs: number,
  since: Date,
): Promise<{ events: number; undelivered: string[] }> {
  const rows = await query(`SELECT id FROM events WHERE merchant_id = $1 AND created_at >= $2`, [merchantId, since]);
  const ids = rows.map((r) => String(r['id']));
  const deadline = Date.now() + waitMs;
  for (;;) {
    const seen = new Set(receiver.deliveries.map((d) => d.webhookId));
    const missing = ids.filter((id) => !seen.has(id));
    if (missing.length === 0 || Date.now() > deadline) return { events: ids.length, undelivered: missing };
    await pause(250);
  }
}
