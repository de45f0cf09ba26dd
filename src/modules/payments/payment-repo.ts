import type { Instructions } from '../../connectors/core/connector.ts';
import { guarded, guardOf, type Statement } from '../../db/statement.ts';
import type { Queryable } from '../../db/store.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import type { PaymentStatus } from './payment-states.ts';
import type {
  Attempt,
  AttemptProviderFields,
  AttemptState,
  AttemptStatus,
  CancellationReason,
  LatePayment,
  LatePaymentResolution,
  Payment,
  PaymentMethod,
  PaymentRouting,
} from './payment-types.ts';
import type { Channel, ChannelRequest, Environment } from '../../kernel/index.ts';
import { planStable } from '../../db/plan-stable.ts';

/**
 * Data access for payments and attempts. Every finder takes the merchant and the environment:
 * another tenant's id simply finds nothing.
 */
interface PaymentRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  status: PaymentStatus;
  amount_minor: bigint;
  currency: string;
  reference_no: string;
  description: string | null;
  channel_requested: ChannelRequest;
  channel: Channel | null;
  payment_method: PaymentMethod | null;
  instructions: Instructions | null;
  metadata: Record<string, string>;
  email: string | null;
  callback_url: string | null;
  api_version: string;
  version: number;
  expires_at: Date;
  failure_code: string | null;
  failure_message: string | null;
  amount_refunded_minor: bigint;
  created_at: Date;
  updated_at: Date;
  succeeded_at: Date | null;
  closed_at: Date | null;
  routing: PaymentRouting | null;
  amount_paid_minor: bigint;
  late_payment: LatePayment | null;
  cancellation_reason: CancellationReason | null;
  reversal_reason: string | null;
  settlement_id: string | null;
  settled_at: Date | null;
  fee_minor: bigint | null;
  net_minor: bigint | null;
  payer_data_erased_at: Date | null;
  [key: string]: unknown;
}

export function paymentFromRow(r: PaymentRow): Payment {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    environment: r.environment,
    status: r.status,
    amountMinor: r.amount_minor,
    currency: r.currency as CurrencyCode,
    referenceNo: r.reference_no,
    description: r.description,
    channelRequested: r.channel_requested,
    channel: r.channel,
    paymentMethod: r.payment_method,
    instructions: r.instructions,
    metadata: r.metadata,
    email: r.email,
    callbackUrl: r.callback_url,
    apiVersion: r.api_version,
    version: r.version,
    expiresAt: r.expires_at,
    failureCode: r.failure_code,
    failureMessage: r.failure_message,
    amountRefundedMinor: r.amount_refunded_minor,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    succeededAt: r.succeeded_at,
    closedAt: r.closed_at,
    routing: r.routing,
    amountPaidMinor: r.amount_paid_minor,
    latePayment: r.late_payment,
    cancellationReason: r.cancellation_reason,
    reversalReason: r.reversal_reason,
    settlementId: r.settlement_id,
    settledAt: r.settled_at,
    feeMinor: r.fee_minor,
    netMinor: r.net_minor,
    payerDataErasedAt: r.payer_data_erased_at ?? null,
  };
}

/**
 * The insert of a new payment. With a guard it is `INSERT … SELECT … WHERE guard` (PostgreSQL
 * types the parameters from the target columns either way), so a statement can insert it only if
 * another part did something first.
 */
export function insertPaymentStatement(p: Payment, guard?: string): Statement {
  return guarded(guard, {
    text: `INSERT INTO payments (id, merchant_id, environment, status, amount_minor, currency, reference_no, description,
       channel_requested, channel, payment_method, instructions, metadata, email, callback_url, api_version, version,
       expires_at, failure_code, failure_message, amount_refunded_minor, created_at, updated_at, succeeded_at, closed_at,
       routing, amount_paid_minor, late_payment, cancellation_reason, settlement_id, settled_at, fee_minor, net_minor, reversal_reason)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25,
       $26, $27, $28, $29, $30, $31, $32, $33, $34)`,
    params: [
      p.id,
      p.merchantId,
      p.environment,
      p.status,
      p.amountMinor,
      p.currency,
      p.referenceNo,
      p.description,
      p.channelRequested,
      p.channel,
      p.paymentMethod === null ? null : JSON.stringify(p.paymentMethod),
      p.instructions === null ? null : JSON.stringify(p.instructions),
      JSON.stringify(p.metadata),
      p.email,
      p.callbackUrl,
      p.apiVersion,
      p.version,
      p.expiresAt,
      p.failureCode,
      p.failureMessage,
      p.amountRefundedMinor,
      p.createdAt,
      p.updatedAt,
      p.succeededAt,
      p.closedAt,
      p.routing === null ? null : JSON.stringify(p.routing),
      p.amountPaidMinor,
      p.latePayment === null ? null : JSON.stringify(p.latePayment),
      p.cancellationReason,
      p.settlementId,
      p.settledAt,
      p.feeMinor,
      p.netMinor,
      p.reversalReason,
    ],
  });
}

export async function insertPayment(q: Queryable, p: Payment): Promise<void> {
  const s = insertPaymentStatement(p);
  await q.query(s.text, s.params);
}

/**
 * A payment by id: a probe of the primary key and nothing else, plan-stable (src/db/plan-stable.ts),
 * marked once here rather than on every GET. The tenant is checked on the row it returns
 * (findPayment), not in the statement (decision 0033): with `merchant_id = $2 AND environment = $3`
 * in it, PostgreSQL plans the probe on the merchant's `payments_by_merchant_created` index — which
 * holds `id` after `created_at`, so the probe walks every payment of the merchant — whenever the
 * table has no statistics or stale ones (a new store's first minute; a table that grew since its
 * last ANALYZE), and the two plans cost the same to within 0.01 even with statistics.
 */
const FIND_PAYMENT_SQL = planStable('SELECT * FROM payments WHERE id = $1');

/** The statement behind findPayment (the plan tests read its plan). */
export function findPaymentStatement(id: string): Statement {
  return { text: FIND_PAYMENT_SQL, params: [id] };
}

/**
 * One payment of a tenant by id. Another merchant's payment, or the other environment's, is not
 * found, exactly like an unknown id.
 */
export async function findPayment(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<Payment | undefined> {
  const { text, params } = findPaymentStatement(id);
  const [row] = await q.query<PaymentRow>(text, params);
  return row === undefined || row.merchant_id !== merchantId || row.environment !== environment ? undefined : paymentFromRow(row);
}

/** The live payment holding a reference_no, if any (to name it in a 409). */
export async function findLivePaymentIdByReference(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  referenceNo: string,
): Promise<string | undefined> {
  const rows = await q.query<{ id: string }>(
    `SELECT id FROM payments WHERE merchant_id = $1 AND environment = $2 AND reference_no = $3
       AND status IN ('processing', 'pending', 'succeeded') LIMIT 1`,
    [merchantId, environment, referenceNo],
  );
  return rows[0]?.id;
}

/** Moves a processing payment to pending with its instructions. False if it was no longer processing. */
/** Moves a processing payment to pending with its instructions (and only if `guard` holds). */
export function markPaymentPendingStatement(
  p: Pick<Payment, 'id' | 'channel' | 'paymentMethod' | 'instructions' | 'expiresAt' | 'updatedAt' | 'version' | 'routing'>,
  guard?: string,
): Statement {
  return {
    text: `UPDATE payments SET status = 'pending', channel = $2, payment_method = $3, instructions = $4, expires_at = $5,
       updated_at = $6, version = $7, routing = $8
     WHERE id = $1 AND status = 'processing' AND version = $7 - 1 AND ${guardOf(guard)} RETURNING id`,
    params: [
      p.id,
      p.channel,
      JSON.stringify(p.paymentMethod),
      JSON.stringify(p.instructions),
      p.expiresAt,
      p.updatedAt,
      p.version,
      p.routing === null ? null : JSON.stringify(p.routing),
    ],
  };
}

export async function markPaymentPending(
  q: Queryable,
  p: Pick<Payment, 'id' | 'channel' | 'paymentMethod' | 'instructions' | 'expiresAt' | 'updatedAt' | 'version' | 'routing'>,
): Promise<boolean> {
  const s = markPaymentPendingStatement(p);
  return (await q.query(s.text, s.params)).length === 1;
}

/** The payment, locked for the rest of the transaction (every lifecycle change starts here). */
export async function lockPayment(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<Payment | undefined> {
  const rows = await q.query<PaymentRow>(
    'SELECT * FROM payments WHERE id = $1 AND merchant_id = $2 AND environment = $3 FOR UPDATE',
    [id, merchantId, environment],
  );
  return rows[0] === undefined ? undefined : paymentFromRow(rows[0]);
}

/**
 * Writes a lifecycle change: status and the fields that move with it. Fenced by the version the
 * change was computed from (false if someone else changed the payment meanwhile); the database
 * trigger checks the transition and that the version grows by exactly one.
 */
export async function updatePaymentLifecycle(q: Queryable, before: Payment, after: Payment): Promise<boolean> {
  const rows = await q.query(
    `UPDATE payments SET status = $3, version = $4, updated_at = $5, succeeded_at = $6, closed_at = $7,
       failure_code = $8, failure_message = $9, amount_paid_minor = $10, late_payment = $11, cancellation_reason = $12,
       reversal_reason = $13
     WHERE id = $1 AND version = $2 RETURNING id`,
    [
      after.id,
      before.version,
      after.status,
      after.version,
      after.updatedAt,
      after.succeededAt,
      after.closedAt,
      after.failureCode,
      after.failureMessage,
      after.amountPaidMinor,
      after.latePayment === null ? null : JSON.stringify(after.latePayment),
      after.cancellationReason,
      after.reversalReason,
    ],
  );
  return rows.length === 1;
}

/** Pending payments whose expiry has passed, oldest first (the sweeper's work list; all tenants). */
export async function findExpiredPending(
  q: Queryable,
  now: Date,
  limit: number,
): Promise<{ id: string; merchantId: string; environment: Environment }[]> {
  const rows = await q.query<{ id: string; merchant_id: string; environment: Environment }>(
    `SELECT id, merchant_id, environment FROM payments WHERE status = 'pending' AND expires_at <= $1
     ORDER BY expires_at, id LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({ id: r.id, merchantId: r.merchant_id, environment: r.environment }));
}

/** Moves a processing payment to failed. False if it was no longer processing. */
export async function markPaymentFailed(
  q: Queryable,
  p: Pick<Payment, 'id' | 'failureCode' | 'failureMessage' | 'updatedAt' | 'version'>,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE payments SET status = 'failed', failure_code = $2, failure_message = $3, updated_at = $4, closed_at = $4,
       version = $5
     WHERE id = $1 AND status = 'processing' AND version = $5 - 1 RETURNING id`,
    [p.id, p.failureCode, p.failureMessage, p.updatedAt, p.version],
  );
  return rows.length === 1;
}

interface AttemptRow {
  id: string;
  payment_id: string;
  seq: number;
  connector: string;
  channel: Channel;
  instrument: string | null;
  status: AttemptStatus;
  provider_reference: string | null;
  error_code: string | null;
  error_message: string | null;
  created_at: Date;
  charge_expires_at: Date | null;
  merchant_id: string;
  environment: Environment;
  provider_status: string | null;
  provider_sequence: number;
  amount_paid_minor: bigint;
  paid_at: Date | null;
  late_payment_at: Date | null;
  late_payment_resolution: LatePaymentResolution | null;
  late_provider_reference: string | null;
  next_sync_at: Date | null;
  sync_count: number;
  [key: string]: unknown;
}

function attemptStateFromRow(r: AttemptRow): AttemptState {
  return {
    ...attemptFromRow(r),
    merchantId: r.merchant_id,
    environment: r.environment,
    providerStatus: r.provider_status,
    providerSequence: r.provider_sequence,
    amountPaidMinor: r.amount_paid_minor,
    paidAt: r.paid_at,
    latePaymentAt: r.late_payment_at,
    latePaymentResolution: r.late_payment_resolution,
    lateProviderReference: r.late_provider_reference,
    nextSyncAt: r.next_sync_at,
    syncCount: r.sync_count,
  };
}

function attemptFromRow(r: AttemptRow): Attempt {
  return {
    id: r.id,
    paymentId: r.payment_id,
    seq: r.seq,
    connector: r.connector,
    channel: r.channel,
    instrument: r.instrument,
    status: r.status,
    providerReference: r.provider_reference,
    errorCode: r.error_code,
    errorMessage: r.error_message,
    createdAt: r.created_at,
    chargeExpiresAt: r.charge_expires_at,
  };
}

export interface NewAttempt {
  id: string;
  paymentId: string;
  merchantId: string;
  environment: Environment;
  seq: number;
  connector: string;
  channel: Channel;
  instrument: string;
  routingTrace: unknown;
  /** The expiry the provider is asked for; fixed now so that every re-send is the same request. */
  chargeExpiresAt: Date;
  now: Date;
}

/** The insert of a new attempt; with a guard, only if the guard holds (see insertPaymentStatement). */
export function insertAttemptStatement(a: NewAttempt, guard?: string): Statement {
  return guarded(guard, {
    text: `INSERT INTO payment_attempts (id, payment_id, merchant_id, environment, seq, connector, channel, instrument, status,
       routing_trace, created_at, updated_at, charge_expires_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'started', $9, $10, $10, $11)`,
    params: [
      a.id,
      a.paymentId,
      a.merchantId,
      a.environment,
      a.seq,
      a.connector,
      a.channel,
      a.instrument,
      JSON.stringify(a.routingTrace),
      a.now,
      a.chargeExpiresAt,
    ],
  });
}

export async function insertAttempt(q: Queryable, a: NewAttempt): Promise<void> {
  const s = insertAttemptStatement(a);
  await q.query(s.text, s.params);
}

export async function latestAttempt(q: Queryable, paymentId: string): Promise<Attempt | undefined> {
  const rows = await q.query<AttemptRow>('SELECT * FROM payment_attempts WHERE payment_id = $1 ORDER BY seq DESC LIMIT 1', [
    paymentId,
  ]);
  return rows[0] === undefined ? undefined : attemptFromRow(rows[0]);
}

export async function listAttempts(q: Queryable, paymentId: string): Promise<Attempt[]> {
  const rows = await q.query<AttemptRow>('SELECT * FROM payment_attempts WHERE payment_id = $1 ORDER BY seq', [paymentId]);
  return rows.map(attemptFromRow);
}

/** A started attempt becomes issued with the provider's instructions (and only if `guard` holds). */
export function markAttemptIssuedStatement(
  a: { id: string; providerReference: string; instructions: Instructions; now: Date; nextSyncAt: Date },
  guard?: string,
): Statement {
  return {
    text: `UPDATE payment_attempts SET status = 'issued', provider_reference = $2, instructions = $3, updated_at = $4,
       next_sync_at = $5, provider_sequence = 0
     WHERE id = $1 AND status = 'started' AND ${guardOf(guard)} RETURNING id`,
    params: [a.id, a.providerReference, JSON.stringify(a.instructions), a.now, a.nextSyncAt],
  };
}

export async function markAttemptIssued(
  q: Queryable,
  a: { id: string; providerReference: string; instructions: Instructions; now: Date; nextSyncAt: Date },
): Promise<boolean> {
  const s = markAttemptIssuedStatement(a);
  return (await q.query(s.text, s.params)).length === 1;
}

/** One attempt of one payment, with what its provider reported. */
/**
 * Who an attempt belongs to, found by its id alone, across tenants: for the reports that name only
 * the attempt (settlement and reconciliation lines, notifications of a provider that echoes no
 * metadata). Scoped to the connector the report came through: a report from one connector never
 * reaches another connector's attempt. Attempt ids are unique.
 */
export async function findAttemptOwner(
  q: Queryable,
  connector: string,
  attemptId: string,
): Promise<{ paymentId: string; merchantId: string; environment: Environment; providerReference: string | null } | undefined> {
  const rows = await q.query<{
    payment_id: string;
    merchant_id: string;
    environment: Environment;
    provider_reference: string | null;
  }>('SELECT payment_id, merchant_id, environment, provider_reference FROM payment_attempts WHERE id = $1 AND connector = $2', [
    attemptId,
    connector,
  ]);
  const r = rows[0];
  return r === undefined
    ? undefined
    : { paymentId: r.payment_id, merchantId: r.merchant_id, environment: r.environment, providerReference: r.provider_reference };
}

export async function findAttemptState(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  paymentId: string,
  attemptId: string,
): Promise<AttemptState | undefined> {
  const rows = await q.query<AttemptRow>(
    'SELECT * FROM payment_attempts WHERE id = $1 AND payment_id = $2 AND merchant_id = $3 AND environment = $4',
    [attemptId, paymentId, merchantId, environment],
  );
  return rows[0] === undefined ? undefined : attemptStateFromRow(rows[0]);
}

/**
 * The attempt whose instructions the payer got (at most one per payment: failover happens only
 * before instructions are issued), or undefined while the payment is processing.
 */
export async function findIssuedAttempt(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  paymentId: string,
): Promise<AttemptState | undefined> {
  const rows = await q.query<AttemptRow>(
    `SELECT * FROM payment_attempts WHERE payment_id = $1 AND merchant_id = $2 AND environment = $3
       AND provider_reference IS NOT NULL ORDER BY seq DESC LIMIT 1`,
    [paymentId, merchantId, environment],
  );
  return rows[0] === undefined ? undefined : attemptStateFromRow(rows[0]);
}

export interface AttemptProviderChange extends AttemptProviderFields {
  /** Null stops the status sync (the attempt is no longer open). */
  nextSyncAt: Date | null;
  now: Date;
}

/** Records what the provider reported on an attempt (never lowers the change counter). */
/** The provider's reference of the charge a late payment arrived on (refunds of it use it). */
export async function recordLateProviderReference(q: Queryable, attemptId: string, providerReference: string): Promise<void> {
  await q.query('UPDATE payment_attempts SET late_provider_reference = $2 WHERE id = $1', [attemptId, providerReference]);
}

export async function updateAttemptFromProvider(q: Queryable, attemptId: string, c: AttemptProviderChange): Promise<void> {
  await q.query(
    `UPDATE payment_attempts SET status = $2, provider_status = $3, provider_sequence = GREATEST(provider_sequence, $4),
       amount_paid_minor = $5, paid_at = $6, late_payment_at = $7, late_payment_resolution = $8, next_sync_at = $9,
       updated_at = $10
     WHERE id = $1`,
    [
      attemptId,
      c.status,
      c.providerStatus,
      c.providerSequence,
      c.amountPaidMinor,
      c.paidAt,
      c.latePaymentAt,
      c.latePaymentResolution,
      c.nextSyncAt,
      c.now,
    ],
  );
}

export interface DueSync {
  merchantId: string;
  environment: Environment;
  paymentId: string;
  attemptId: string;
  connector: string;
  providerReference: string;
  syncCount: number;
}

/** Issued attempts whose next status sync is due (the status-sync job's work list; all tenants). */
export async function findDueSyncs(q: Queryable, now: Date, limit: number): Promise<DueSync[]> {
  const rows = await q.query<{
    merchant_id: string;
    environment: Environment;
    payment_id: string;
    id: string;
    connector: string;
    provider_reference: string;
    sync_count: number;
  }>(
    `SELECT merchant_id, environment, payment_id, id, connector, provider_reference, sync_count FROM payment_attempts
     WHERE status = 'issued' AND next_sync_at <= $1 AND provider_reference IS NOT NULL
     ORDER BY next_sync_at, id LIMIT $2`,
    [now, limit],
  );
  return rows.map((r) => ({
    merchantId: r.merchant_id,
    environment: r.environment,
    paymentId: r.payment_id,
    attemptId: r.id,
    connector: r.connector,
    providerReference: r.provider_reference,
    syncCount: r.sync_count,
  }));
}

/** After a sync: when to ask again (null: stop). Only touches attempts that are still issued. */
export async function rescheduleSync(q: Queryable, attemptId: string, nextSyncAt: Date | null, now: Date): Promise<void> {
  await q.query(
    `UPDATE payment_attempts SET next_sync_at = $2, sync_count = sync_count + 1, last_synced_at = $3
     WHERE id = $1 AND status = 'issued'`,
    [attemptId, nextSyncAt, now],
  );
}

export async function markAttemptFailed(
  q: Queryable,
  a: { id: string; errorCode: string; errorMessage: string; now: Date },
): Promise<void> {
  await q.query(
    `UPDATE payment_attempts SET status = 'failed', error_code = $2, error_message = $3, updated_at = $4
     WHERE id = $1 AND status = 'started'`,
    [a.id, a.errorCode, a.errorMessage.slice(0, 500), a.now],
  );
}

/**
 * What is committed to refunds of one payment from one source (succeeded, and pending: held,
 * outcome not known yet): refunds of captured money and of late money have separate limits.
 */
export async function committedRefundsMinor(
  q: Queryable,
  paymentId: string,
  source: 'payment' | 'late_payment' = 'payment',
): Promise<{ succeeded: bigint; pending: bigint }> {
  const rows = await q.query<{ status: 'pending' | 'succeeded'; s: bigint }>(
    `SELECT status, sum(amount_minor)::bigint AS s FROM refunds
      WHERE payment_id = $1 AND status <> 'failed' AND (held_from = 'payer_refund_due') = $2
      GROUP BY status`,
    [paymentId, source === 'late_payment'],
  );
  return {
    succeeded: rows.find((r) => r.status === 'succeeded')?.s ?? 0n,
    pending: rows.find((r) => r.status === 'pending')?.s ?? 0n,
  };
}
