import type { Channel, Environment, Instructions } from '../../connectors/core/connector.ts';
import type { Queryable } from '../../db/store.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import type { PaymentStatus } from './payment-states.ts';
import type { Attempt, AttemptStatus, ChannelRequest, Payment, PaymentMethod } from './payment-types.ts';

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
  };
}

export async function insertPayment(q: Queryable, p: Payment): Promise<void> {
  await q.query(
    `INSERT INTO payments (id, merchant_id, environment, status, amount_minor, currency, reference_no, description,
       channel_requested, channel, payment_method, instructions, metadata, email, callback_url, api_version, version,
       expires_at, failure_code, failure_message, amount_refunded_minor, created_at, updated_at, succeeded_at, closed_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)`,
    [
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
    ],
  );
}

export async function findPayment(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
): Promise<Payment | undefined> {
  const rows = await q.query<PaymentRow>('SELECT * FROM payments WHERE id = $1 AND merchant_id = $2 AND environment = $3', [
    id,
    merchantId,
    environment,
  ]);
  return rows[0] === undefined ? undefined : paymentFromRow(rows[0]);
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
export async function markPaymentPending(
  q: Queryable,
  p: Pick<Payment, 'id' | 'channel' | 'paymentMethod' | 'instructions' | 'expiresAt' | 'updatedAt' | 'version'>,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE payments SET status = 'pending', channel = $2, payment_method = $3, instructions = $4, expires_at = $5,
       updated_at = $6, version = $7
     WHERE id = $1 AND status = 'processing' AND version = $7 - 1 RETURNING id`,
    [p.id, p.channel, JSON.stringify(p.paymentMethod), JSON.stringify(p.instructions), p.expiresAt, p.updatedAt, p.version],
  );
  return rows.length === 1;
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
  [key: string]: unknown;
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
  now: Date;
}

export async function insertAttempt(q: Queryable, a: NewAttempt): Promise<void> {
  await q.query(
    `INSERT INTO payment_attempts (id, payment_id, merchant_id, environment, seq, connector, channel, instrument, status,
       routing_trace, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'started', $9, $10, $10)`,
    [
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
    ],
  );
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

export async function markAttemptIssued(
  q: Queryable,
  a: { id: string; providerReference: string; instructions: Instructions; now: Date },
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE payment_attempts SET status = 'issued', provider_reference = $2, instructions = $3, updated_at = $4
     WHERE id = $1 AND status = 'started' RETURNING id`,
    [a.id, a.providerReference, JSON.stringify(a.instructions), a.now],
  );
  return rows.length === 1;
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
