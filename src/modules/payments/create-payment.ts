import { randomToken } from '../../lib/random.ts';
import type { ChargeOutcome, Connector, Instructions } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import { isUniqueViolation } from '../../db/db-errors.ts';
import { withCtes } from '../../db/statement.ts';
import type { Queryable, Store } from '../../db/store.ts';
import { assert } from '../../lib/assert.ts';
import type { Clock } from '../../lib/clock.ts';
import { deadline } from '../../lib/deadline.ts';
import type { ErrorCode, ErrorDetail } from '../../lib/error-catalogue.ts';
import type { Failpoints } from '../../lib/failpoints.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { insertEvent, insertEventStatement } from '../events/index.ts';
import {
  type IdempotencyRecord,
  type IdempotencyScope,
  type KeyRow,
  answerFromKey,
  decideOnExistingKey,
  fingerprint,
  finishKey,
  finishKeyStatement,
  getKey,
  insertStartedKeyStatement,
  LeaseLost,
  keyRecordOf,
  lockLeaseStatement,
  releaseLease,
  selectKeyStatement,
  withLease,
} from '../idempotency/index.ts';
import { findMerchantSettings, instructionTtlMs } from '../merchants/index.ts';
import { type Candidate, type ConnectorHealthTracker, routePayment } from '../routing/index.ts';
import {
  findLivePaymentIdByReference,
  findPayment,
  insertAttempt,
  insertAttemptStatement,
  insertPaymentStatement,
  listAttempts,
  markAttemptFailed,
  markAttemptIssuedStatement,
  markPaymentFailed,
  markPaymentPendingStatement,
  type NewAttempt,
} from './payment-repo.ts';
import type { Attempt, CreatePaymentInput, Payment } from './payment-types.ts';
import { newPayment } from './new-payment.ts';
import { paymentView } from './payment-view.ts';
import type { KeyedResult, MerchantSettings, Principal } from '../../kernel/index.ts';
import { planStable } from '../../db/plan-stable.ts';

/**
 * POST /payment/create without the HTTP: route, persist, call the provider between transactions,
 * finish. The recovery points and failure cases are in docs/idempotency.md and docs/payments.md.
 */

export interface CreatePaymentDeps {
  store: Store;
  connectors: ConnectorRegistry;
  clock: Clock;
  failpoints: Failpoints;
  log: Logger;
  publicBaseUrl: string;
  idempotencyLeaseMs: number;
  idempotencyTtlMs: number;
  connectorTimeoutMs: number;
  /** In-process connector health: routing demotes connectors that keep failing. */
  health?: ConnectorHealthTracker;
  /** When the status sync first asks the provider about an issued attempt (default 5 minutes). */
  statusSyncDelayMs?: number;
}

export const DEFAULT_STATUS_SYNC_DELAY_MS = 5 * 60_000;

export const CREATE_OPERATION = 'payment.create';
/** Creates sent without a key still get a record (keyed by the payment id) so the completer can finish them. */
export const UNKEYED_CREATE_OPERATION = 'payment.create.unkeyed';
/** At most this many provider calls per run, so a run always ends well inside its lease. */
export const MAX_ATTEMPTS_PER_RUN = 3;
/** A payment never gets more attempts than this over all its runs. */
const MAX_ATTEMPTS_PER_PAYMENT = 12;
const PROVIDER_RETRY_AFTER_SECONDS = 2;

const failure = (code: ErrorCode, message: string, details: ErrorDetail[] = [], retryAfterSeconds?: number): KeyedResult => ({
  kind: 'failure',
  code,
  message,
  details,
  ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
});

const newLeaseToken = () => randomToken(12);
const addMs = (d: Date, ms: number) => new Date(d.getTime() + ms);

export async function createPayment(
  deps: CreatePaymentDeps,
  principal: Principal,
  input: CreatePaymentInput,
  idempotencyKey: string | undefined,
  /** A checkout chooses the id first, so that its record of the payment precedes the payment. */
  options: { paymentId?: string } = {},
): Promise<KeyedResult> {
  const requestFingerprint = fingerprint(CREATE_OPERATION, input);
  if (idempotencyKey !== undefined) {
    // A retry's key exists: answer from it (replay, refuse, or take over) with one primary-key read,
    // before routing and building a create. A fresh key pays one small read for it; a key that
    // appears after this read is still caught by transaction 1 below.
    const keyScope: IdempotencyScope = {
      merchantId: principal.merchantId,
      environment: principal.environment,
      operation: CREATE_OPERATION,
      key: idempotencyKey,
    };
    const existing = await getKey(deps.store, keyScope);
    if (existing !== undefined) return continueExisting(deps, principal, keyScope, existing, requestFingerprint);
  }
  // Rejections before any work store nothing: routing happens before the first write.
  const settings = principal.settings ?? (await findMerchantSettings(deps.store, principal.merchantId));
  const route = routePayment(
    { channel: input.channel, currency: input.currency, amountMinor: input.amountMinor },
    deps.connectors.enabledFor(principal.environment),
    settings.routing,
    deps.health?.snapshot(deps.clock.now()) ?? {},
  );
  if (!route.ok) return failure(route.code, route.message, route.details);
  const first = route.candidates[0];
  assert(first !== undefined, 'routing returned ok without candidates');
  const firstConnector = deps.connectors.get(first.connector);
  assert(firstConnector !== undefined, `routed to unknown connector ${first.connector}`);

  const now = deps.clock.now();
  const paymentId = options.paymentId ?? newId('payment', now.getTime());
  const scope: IdempotencyScope =
    idempotencyKey === undefined
      ? {
          merchantId: principal.merchantId,
          environment: principal.environment,
          operation: UNKEYED_CREATE_OPERATION,
          key: paymentId,
        }
      : {
          merchantId: principal.merchantId,
          environment: principal.environment,
          operation: CREATE_OPERATION,
          key: idempotencyKey,
        };
  const leaseToken = newLeaseToken();
  const payment = newPayment({
    id: paymentId,
    merchantId: principal.merchantId,
    environment: principal.environment,
    apiVersion: principal.apiVersion,
    request: input,
    // Provisional: the issuing connector's answer sets the real expiry in transaction 2.
    expiresAt: addMs(now, instructionTtlMs(settings, firstConnector.capabilities)),
    now,
    routing: { candidates: route.candidates, trace: route.trace, attempts: [] },
  });

  // Transaction 1: the key, the processing payment (which takes the reference_no) and attempt 1.
  const firstAttempt: NewAttempt = {
    id: newId('attempt', now.getTime()),
    paymentId,
    merchantId: principal.merchantId,
    environment: principal.environment,
    seq: 1,
    connector: first.connector,
    channel: first.channel,
    instrument: first.instrument,
    routingTrace: route.trace,
    chargeExpiresAt: payment.expiresAt,
    now,
  };
  let start: Awaited<ReturnType<typeof writeCreateStart>>;
  try {
    start = await writeCreateStart(deps.store, {
      scope,
      fingerprint: requestFingerprint,
      leaseToken,
      lockedUntil: addMs(now, deps.idempotencyLeaseMs),
      keyExpiresAt: addMs(now, deps.idempotencyTtlMs),
      payment,
      attempt: firstAttempt,
    });
  } catch (error) {
    if (!isUniqueViolation(error, 'payments_live_reference_no')) throw error;
    const liveId = await findLivePaymentIdByReference(deps.store, principal.merchantId, principal.environment, input.referenceNo);
    return failure('reference_no_conflict', `A live payment already uses reference_no "${input.referenceNo}".`, [
      {
        field: 'reference_no',
        issue: 'reference_no_conflict',
        message: 'reference_no is in use by a live payment',
        payment_id: liveId ?? null,
      },
    ]);
  }
  if (!start.inserted) {
    // The key exists: replay, refuse or take over. Committed by a concurrent request after this
    // statement's snapshot, it is read again; gone again (expired and deleted), retry.
    const existing = start.existing ?? (await getKey(deps.store, scope));
    if (existing !== undefined) return continueExisting(deps, principal, scope, existing, requestFingerprint);
    return failure('idempotency_request_in_progress', 'Retry this request.', [], 1);
  }

  // The fresh path hands drive() what transaction 1 just wrote instead of reading it back.
  const known: KnownState = { payment, settings, attempts: [attemptFromNew(firstAttempt)] };
  return driveReleasingOnError(deps, principal, scope, leaseToken, paymentId, known);
}

/**
 * Transaction 1 of a create (docs/payments.md, "Create, step by step"): the idempotency key as
 * `started`, the `processing` payment — whose insert is where a live `reference_no` conflict
 * surfaces (a unique violation, `payments_live_reference_no`, and nothing is written) — and its
 * first attempt, sent as ONE statement (one round trip, one implicit transaction).
 *
 * The key is inserted `ON CONFLICT DO NOTHING` and the payment and attempt only if it was, so a
 * request whose key exists (a replay, above all) writes nothing, fails nothing, and gets the
 * existing key's record from the same statement: one round trip, no error. The record is read
 * from the statement's snapshot, so a key that a concurrent request committed meanwhile is not in
 * it (`existing` undefined although not inserted): the caller then reads the key again. Exported
 * so the benchmark's DB ceiling runs exactly these writes.
 */
export async function writeCreateStart(
  q: Queryable,
  w: {
    scope: IdempotencyScope;
    fingerprint: string;
    leaseToken: string;
    lockedUntil: Date;
    keyExpiresAt: Date;
    payment: Payment;
    attempt: NewAttempt;
  },
): Promise<{ inserted: true } | { inserted: false; existing: IdempotencyRecord | undefined }> {
  const key = insertStartedKeyStatement(w.scope, {
    fingerprint: w.fingerprint,
    recoveryPoint: 'payment_created',
    resourceId: w.payment.id,
    leaseToken: w.leaseToken,
    lockedUntil: w.lockedUntil,
    now: w.payment.createdAt,
    expiresAt: w.keyExpiresAt,
  });
  // The attempt's foreign key to the payment is checked at the end of the statement, after both
  // inserts, so the order of those two parts does not matter; both wait for the key's.
  const ours = 'EXISTS (SELECT 1 FROM k)';
  const existing = selectKeyStatement(w.scope);
  const s = withCtes(
    [
      ['k', key],
      ['p', insertPaymentStatement(w.payment, ours)],
      ['a', insertAttemptStatement(w.attempt, ours)],
      ['e', existing],
    ],
    { text: `SELECT ${ours} AS inserted, e.* FROM (SELECT 1) AS one LEFT JOIN e ON TRUE`, params: [] },
  );
  const [row] = await q.query<Partial<KeyRow> & { inserted: boolean }>(planStable(s.text), s.params);
  if (row?.inserted === true) return { inserted: true };
  return { inserted: false, existing: keyRecordOf(row) };
}

/**
 * Transaction 2 of a create as ONE statement: the key finished with the exact response bytes, the
 * attempt issued, the payment pending, and its `payment.pending` event. Every part depends on the
 * payment update, which depends on our key row, locked first (`lk`): if our lease was taken over,
 * or the payment is no longer processing, nothing at all is written and the answer is false (the
 * caller then answers from the key). Exported so the benchmark's DB ceiling runs these writes.
 */
export async function writeCreateFinish(
  q: Queryable,
  w: {
    scope: IdempotencyScope;
    leaseToken: string;
    body: string;
    view: unknown;
    previous: Payment;
    pending: Payment;
    attemptId: string;
    providerReference: string;
    keyExpiresAt: Date;
    nextSyncAt: Date;
  },
): Promise<boolean> {
  const now = w.pending.updatedAt;
  const afterPayment = 'EXISTS (SELECT 1 FROM p)';
  const event = insertEventStatement(
    {
      merchantId: w.pending.merchantId,
      environment: w.pending.environment,
      type: 'payment.pending',
      objectType: 'payment',
      objectId: w.pending.id,
      objectVersion: w.pending.version,
      apiVersion: w.pending.apiVersion,
      object: w.view,
      previousAttributes: { status: w.previous.status, instructions: null },
      now,
    },
    afterPayment,
  );
  const s = withCtes(
    [
      ['lk', lockLeaseStatement(w.scope, w.leaseToken)],
      ['p', markPaymentPendingStatement(w.pending, 'EXISTS (SELECT 1 FROM lk)')],
      [
        'k',
        finishKeyStatement(
          w.scope,
          { leaseToken: w.leaseToken, responseStatus: 201, responseBody: w.body, now, expiresAt: w.keyExpiresAt },
          afterPayment,
        ),
      ],
      [
        'a',
        markAttemptIssuedStatement(
          {
            id: w.attemptId,
            providerReference: w.providerReference,
            instructions: w.pending.instructions as Instructions,
            now,
            nextSyncAt: w.nextSyncAt,
          },
          afterPayment,
        ),
      ],
      ['e', event.statement],
    ],
    { text: 'SELECT (SELECT count(*) FROM p) AS done', params: [] },
  );
  const rows = await q.query<{ done: bigint }>(planStable(s.text), s.params);
  return rows[0]?.done === 1n;
}

/** What a run of drive() knows without reading it: the payment, the merchant's settings, the attempts so far. */
interface KnownState {
  payment: Payment;
  settings: MerchantSettings;
  attempts: Attempt[];
}

function attemptFromNew(a: NewAttempt): Attempt {
  return {
    id: a.id,
    paymentId: a.paymentId,
    seq: a.seq,
    connector: a.connector,
    channel: a.channel,
    instrument: a.instrument,
    status: 'started',
    providerReference: null,
    errorCode: null,
    errorMessage: null,
    createdAt: a.now,
    chargeExpiresAt: a.chargeExpiresAt,
  };
}

/**
 * A request that fails unexpectedly (a bug, the database going away) gives its lease back on the
 * way out, so the client's retry resumes at once instead of waiting out the lease. Resuming is
 * always safe: the provider dedupes the attempt id.
 */
async function driveReleasingOnError(
  deps: CreatePaymentDeps,
  principal: Principal,
  scope: IdempotencyScope,
  leaseToken: string,
  paymentId: string,
  known?: KnownState,
): Promise<KeyedResult> {
  try {
    return await drive(deps, principal, scope, leaseToken, paymentId, 'request', known);
  } catch (error) {
    await releaseLease(deps.store, scope, leaseToken, deps.clock.now()).catch(() => undefined);
    throw error;
  }
}

/** A request whose key already exists: replay, refuse, or take over an abandoned one and resume it. */
async function continueExisting(
  deps: CreatePaymentDeps,
  principal: Principal,
  scope: IdempotencyScope,
  record: IdempotencyRecord,
  requestFingerprint: string,
): Promise<KeyedResult> {
  const keyDeps = { store: deps.store, clock: deps.clock, leaseMs: deps.idempotencyLeaseMs };
  const decision = await decideOnExistingKey(keyDeps, scope, record, requestFingerprint);
  if (decision.kind === 'answer') return decision.result;
  assert(record.resourceId !== null, 'started create without a payment id');
  deps.log.info(
    { payment_id: record.resourceId, recovery_point: 'recoveryPoint' in record ? record.recoveryPoint : null },
    'resuming an interrupted create',
  );
  return driveReleasingOnError(deps, principal, scope, decision.leaseToken, record.resourceId);
}

/**
 * Runs the provider calls for a processing payment while holding the key's lease: re-sends a
 * started attempt (same attempt id, so the provider dedupes), fails over to the next candidate on
 * a refusal or a timeout, and finishes with transaction 2. `mode: 'completer'` is the background
 * job's last word: if no provider issues instructions, the payment fails instead of staying open.
 */
export async function drive(
  deps: CreatePaymentDeps,
  principal: Principal,
  scope: IdempotencyScope,
  leaseToken: string,
  paymentId: string,
  mode: 'request' | 'completer',
  known?: KnownState,
): Promise<KeyedResult> {
  const payment = known?.payment ?? (await findPayment(deps.store, principal.merchantId, principal.environment, paymentId));
  assert(payment !== undefined, `idempotency key points at missing payment ${paymentId}`);
  if (payment.status !== 'processing') return answerFromKey(deps.store, scope);

  // A resumed create follows the plan recorded at creation, so its trace stays the truth.
  const settings = known?.settings ?? principal.settings ?? (await findMerchantSettings(deps.store, principal.merchantId));
  let candidates: Candidate[];
  let trace: unknown;
  if (payment.routing !== null) {
    candidates = payment.routing.candidates;
    trace = payment.routing.trace;
  } else {
    const route = routePayment(
      { channel: payment.channelRequested, currency: payment.currency, amountMinor: payment.amountMinor },
      deps.connectors.enabledFor(principal.environment),
      settings.routing,
      deps.health?.snapshot(deps.clock.now()) ?? {},
    );
    candidates = route.ok ? route.candidates : [];
    trace = route.trace;
  }
  // Every attempt of this payment, oldest first, kept current as this run adds and fails them.
  const attempts = known?.attempts ?? (await listAttempts(deps.store, paymentId));
  let attempt = attempts.at(-1);
  assert(attempt !== undefined, `processing payment ${paymentId} has no attempt`);
  const tried = new Set<string>();
  let lastError = 'no provider could issue instructions';

  try {
    for (let calls = 0; calls < MAX_ATTEMPTS_PER_RUN;) {
      if (attempt.status === 'started') {
        calls += 1;
        tried.add(attempt.connector);
        const outcome = await callConnector(deps, principal, payment, attempt, settings);
        deps.failpoints.hit('create.after_connector');
        if (outcome.kind === 'issued') return await finishIssued(deps, scope, leaseToken, payment, attempts, attempt, outcome);
        lastError = `${attempt.connector}: ${outcome.message}`;
        deps.log.warn(
          {
            payment_id: paymentId,
            attempt_id: attempt.id,
            connector: attempt.connector,
            outcome: outcome.kind,
            code: outcome.code,
          },
          'provider did not issue instructions',
        );
        if (outcome.kind === 'unknown' && candidates.every((c) => tried.has(c.connector))) {
          // No other candidate. The provider may have made the charge, so the attempt stays
          // started: the next run (a retry with the same key, or the completer) re-sends the same
          // attempt id and gets that charge instead of leaving it orphaned.
          break;
        }
        const failed = attempt;
        await withLease(deps.store, scope, leaseToken, (tx) =>
          markAttemptFailed(tx, { id: failed.id, errorCode: outcome.code, errorMessage: outcome.message, now: deps.clock.now() }),
        );
        attempts[attempts.length - 1] = { ...failed, status: 'failed', errorCode: outcome.code, errorMessage: outcome.message };
      }
      const next = candidates.find((c) => !tried.has(c.connector));
      if (next === undefined || attempt.seq >= MAX_ATTEMPTS_PER_PAYMENT) break;
      const now = deps.clock.now();
      const nextConnector = deps.connectors.get(next.connector);
      const nextAttempt: Attempt = {
        id: newId('attempt', now.getTime()),
        paymentId,
        seq: attempt.seq + 1,
        connector: next.connector,
        channel: next.channel,
        instrument: next.instrument,
        status: 'started',
        providerReference: null,
        errorCode: null,
        errorMessage: null,
        createdAt: now,
        chargeExpiresAt:
          nextConnector === undefined ? payment.expiresAt : addMs(now, instructionTtlMs(settings, nextConnector.capabilities)),
      };
      await withLease(deps.store, scope, leaseToken, (tx) =>
        insertAttempt(tx, {
          ...nextAttempt,
          merchantId: principal.merchantId,
          environment: principal.environment,
          instrument: next.instrument,
          routingTrace: trace,
          chargeExpiresAt: nextAttempt.chargeExpiresAt ?? payment.expiresAt,
          now,
        }),
      );
      attempts.push(nextAttempt);
      attempt = nextAttempt;
    }
  } catch (error) {
    if (error instanceof LeaseLost) return answerFromKey(deps.store, scope);
    throw error;
  }

  if (mode === 'completer') return failAbandoned(deps, principal, scope, leaseToken, payment, lastError);
  // Give the lease back so that the client's retry resumes at once instead of waiting for it.
  await releaseLease(deps.store, scope, leaseToken, deps.clock.now());
  return failure(
    'provider_unavailable',
    'No provider could issue payment instructions right now. Retry with the same Idempotency-Key.',
    [{ payment_id: paymentId }],
    PROVIDER_RETRY_AFTER_SECONDS,
  );
}

async function callConnector(
  deps: CreatePaymentDeps,
  principal: Principal,
  payment: Payment,
  attempt: Attempt,
  settings: MerchantSettings,
): Promise<ChargeOutcome> {
  const connector: Connector | undefined = deps.connectors.get(attempt.connector);
  if (connector === undefined) return { kind: 'refused', code: 'connector_disabled', message: 'connector no longer enabled' };
  const outcome = await callCreateCharge(deps, principal, payment, attempt, settings, connector);
  // Only "no answer" counts against health: a provider that says no is up.
  deps.health?.record(attempt.connector, outcome.kind !== 'unknown', deps.clock.now());
  return outcome;
}

async function callCreateCharge(
  deps: CreatePaymentDeps,
  principal: Principal,
  payment: Payment,
  attempt: Attempt,
  settings: MerchantSettings,
  connector: Connector,
): Promise<ChargeOutcome> {
  const now = deps.clock.now();
  const connectorDeadline = deadline(null, deps.connectorTimeoutMs);
  try {
    return await connector.createCharge(
      {
        attemptId: attempt.id,
        paymentId: payment.id,
        merchantId: payment.merchantId,
        merchantName: principal.merchantName,
        environment: payment.environment,
        amountMinor: payment.amountMinor,
        currency: payment.currency,
        instrument: attempt.instrument ?? connector.capabilities.instruments[0]?.code ?? '',
        referenceNo: payment.referenceNo,
        description: payment.description,
        email: payment.email,
        expiresAt: attempt.chargeExpiresAt ?? addMs(attempt.createdAt, instructionTtlMs(settings, connector.capabilities)),
      },
      { signal: connectorDeadline.signal, now },
    );
  } catch (error) {
    // A connector must return outcomes as values; a throw means we cannot know what happened.
    const timedOut = connectorDeadline.timedOut();
    deps.log.error({ err: error, connector: attempt.connector, attempt_id: attempt.id }, 'connector call threw');
    return {
      kind: 'unknown',
      code: timedOut ? 'timeout' : 'connector_error',
      message: timedOut ? 'provider timed out' : 'provider call failed',
    };
  } finally {
    connectorDeadline.dispose();
  }
}

/** Transaction 2 after a provider issued instructions (see writeCreateFinish). */
async function finishIssued(
  deps: CreatePaymentDeps,
  scope: IdempotencyScope,
  leaseToken: string,
  payment: Payment,
  attempts: readonly Attempt[],
  attempt: Attempt,
  outcome: Extract<ChargeOutcome, { kind: 'issued' }>,
): Promise<KeyedResult> {
  const connector = deps.connectors.get(attempt.connector);
  const instrument = connector?.capabilities.instruments.find((i) => i.code === attempt.instrument);
  const now = deps.clock.now();
  // Object.assign, not a spread with added properties: decision 0028.
  const pending: Payment = Object.assign({}, payment, {
    status: 'pending' as const,
    channel: attempt.channel,
    paymentMethod: {
      channel: attempt.channel,
      connector: attempt.connector,
      instrument: attempt.instrument ?? '',
      instrument_name: instrument?.name ?? attempt.instrument ?? '',
    },
    instructions: outcome.instructions,
    expiresAt: outcome.expiresAt,
    version: payment.version + 1,
    updatedAt: now,
    routing: {
      candidates: payment.routing?.candidates ?? [],
      trace: payment.routing?.trace ?? [],
      attempts: attempts.map((a) => ({
        attempt_id: a.id,
        connector: a.connector,
        status: a.id === attempt.id ? 'issued' : a.status,
        error_code: a.errorCode,
      })),
    },
  });
  const view = paymentView(pending, deps.publicBaseUrl);
  const body = JSON.stringify(view);
  return finishWithResponse(deps, scope, body, 'statement', (q) =>
    writeCreateFinish(q, {
      scope,
      leaseToken,
      body,
      view,
      previous: payment,
      pending,
      attemptId: attempt.id,
      providerReference: outcome.providerReference,
      keyExpiresAt: addMs(now, deps.idempotencyTtlMs),
      nextSyncAt: addMs(now, deps.statusSyncDelayMs ?? DEFAULT_STATUS_SYNC_DELAY_MS),
    }),
  );
}

/** The completer gives up: the payment fails and the key is finished with that final answer. */
async function failAbandoned(
  deps: CreatePaymentDeps,
  principal: Principal,
  scope: IdempotencyScope,
  leaseToken: string,
  payment: Payment,
  reason: string,
): Promise<KeyedResult> {
  const now = deps.clock.now();
  const failed: Payment = {
    ...payment,
    status: 'failed',
    failureCode: 'provider_unavailable',
    failureMessage: reason.slice(0, 500),
    version: payment.version + 1,
    updatedAt: now,
    closedAt: now,
  };
  const view = paymentView(failed, deps.publicBaseUrl);
  const body = JSON.stringify(view);
  return finishWithResponse(deps, scope, body, 'transaction', async (tx) => {
    const finished = await finishKey(tx, scope, {
      leaseToken,
      responseStatus: 201,
      responseBody: body,
      now,
      expiresAt: addMs(now, deps.idempotencyTtlMs),
    });
    if (!finished) return false;
    if (!(await markPaymentFailed(tx, failed))) throw new LeaseLost();
    await insertEvent(tx, {
      merchantId: failed.merchantId,
      environment: failed.environment,
      type: 'payment.failed',
      objectType: 'payment',
      objectId: failed.id,
      objectVersion: failed.version,
      apiVersion: principal.apiVersion,
      object: view,
      previousAttributes: { status: payment.status },
      now,
    });
    return true;
  });
}

/**
 * Runs a create's final transaction. `writes` returns false (or throws LeaseLost) when our
 * lease was taken over; then someone else finishes, and we answer with what they stored.
 */
async function finishWithResponse(
  deps: CreatePaymentDeps,
  scope: IdempotencyScope,
  body: string,
  shape: 'statement' | 'transaction',
  writes: (q: Queryable) => Promise<boolean>,
): Promise<KeyedResult> {
  try {
    // A single-statement write is atomic on its own; several statements need a transaction.
    const done = shape === 'statement' ? await writes(deps.store) : await deps.store.transaction(writes);
    if (!done) throw new LeaseLost();
  } catch (error) {
    if (error instanceof LeaseLost) return answerFromKey(deps.store, scope);
    throw error;
  }
  return { kind: 'response', status: 201, body, replayed: false };
}
