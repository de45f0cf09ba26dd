import { randomToken } from '../../lib/random.ts';
import type { Queryable, Store } from '../../db/store.ts';
import { assert } from '../../lib/assert.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import type { OutboundClient, OutboundResult } from '../../lib/net/outbound-http.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { injectTraceHeaders, markFailed, tracingEnabled, withSpan } from '../../lib/tracing.ts';
import { ALL_EVENTS, eventBody, findEvent, insertEvent } from '../events/index.ts';
import { findMerchant } from '../merchants/index.ts';
import { callbackSecretKey, ensureCallbackSecrets } from './callback-secret-service.ts';
import {
  anyQueuedEvent,
  callbackUrlsOf,
  cancelPendingDeliveriesOf,
  type ClaimedDelivery,
  claimDueDeliveries,
  type DeliveryOutcome,
  type DeliveryRecord,
  type DeliveryTrigger,
  dequeueEvents,
  insertDeliveries,
  lockQueuedEvents,
  type NewDelivery,
  recordAttempts,
  type DeliveryResult,
} from './delivery-repo.ts';
import {
  autoDisableEndpoint,
  enabledEndpointsOf,
  findEndpoint,
  noteEndpointFailure,
  noteEndpointSuccess,
  type Tenant,
} from './endpoint-repo.ts';
import { failure, type Result } from './endpoint-service.ts';
import { endpointView } from './endpoint-view.ts';
import { type AttemptOutcome, nextRetryDelayMs, outcomeOfStatus, parseRetryAfterMs } from './retry-policy.ts';
import { signatureHeader } from './webhook-signature.ts';
import { callbackSecretContext, endpointSecretContext, signingSecrets } from './webhook-secrets.ts';
import type { DeliveryFailureReason, WebhookEndpoint } from './webhook-types.ts';
import { recordAudit } from '../audit/index.ts';
import type { Principal } from '../../kernel/index.ts';

/**
 * The outbox, from queued event to recorded attempt:
 *
 *   event row ──trigger──▶ fan-out queue ──fanOut()──▶ deliveries ──claim()──▶ send ──record()
 *   (request transaction)   (same transaction)         (short tx)        (short tx)  (no tx)  (short tx)
 *
 * No transaction is ever open while a request is on the wire: PGlite is one session, and a slow
 * receiver must not hold locks or connections.
 */
export interface DeliveryDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  secretBox: SecretBox;
  http: OutboundClient;
  /** In [0, 1); jitter of the retry schedule. */
  random: () => number;
  timeoutMs: number;
  connectTimeoutMs: number;
  leaseMs: number;
  /** An endpoint whose every attempt failed for this long is disabled. */
  disableAfterMs: number;
  /** The key order of an event type's object in a webhook body (catalogue/event-examples.ts). */
  eventObjectTemplate: (type: string) => unknown;
}

export const USER_AGENT = 'Tributary-Webhooks/1.0 (+https://www.standardwebhooks.com)';
export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 3_600_000;
const MAX_KEPT_ERROR_CHARS = 500;

// ---------------------------------------------------------------------------------------------
// Fan-out: which targets an event goes to (pure), and the transaction that creates deliveries.

export interface FanOutEvent extends Tenant {
  id: string;
  type: string;
  /** The payment the event is about (its own object, or the payment of a refund): its callback_url gets it too. */
  paymentId: string | null;
}

export function subscribes(endpoint: WebhookEndpoint, type: string): boolean {
  return endpoint.enabledEvents.includes(ALL_EVENTS) || endpoint.enabledEvents.includes(type);
}

/**
 * Deliveries to the same receiver share a target key, for the per-receiver concurrency limit:
 * the endpoint for endpoints, the merchant's callback origin for callback URLs (every payment
 * carries its own URL, but they normally all point at one server).
 */
export function callbackTargetKey(tenant: Tenant, url: string): string {
  let origin = url;
  try {
    origin = new URL(url).origin;
  } catch {
    // Saved URLs were parsed when saved; keep the text as the key if that ever changes.
  }
  return `cb:${tenant.merchantId}:${tenant.environment}:${origin}`;
}

export function planDeliveries(
  events: readonly FanOutEvent[],
  endpoints: readonly WebhookEndpoint[],
  callbackUrls: ReadonlyMap<string, string>,
  options: { trigger: DeliveryTrigger; now: Date; ignoreFilters?: boolean },
): NewDelivery[] {
  const out: NewDelivery[] = [];
  const base = (e: FanOutEvent) => ({
    id: newId('delivery', options.now.getTime()),
    eventId: e.id,
    merchantId: e.merchantId,
    environment: e.environment,
    trigger: options.trigger,
  });
  for (const e of events) {
    for (const endpoint of endpoints) {
      if (endpoint.merchantId !== e.merchantId || endpoint.environment !== e.environment) continue;
      if (options.ignoreFilters !== true && !subscribes(endpoint, e.type)) continue;
      out.push({ ...base(e), endpointId: endpoint.id, callbackUrl: null, targetKey: endpoint.id });
    }
    const callbackUrl = e.paymentId === null ? undefined : callbackUrls.get(e.paymentId);
    if (callbackUrl !== undefined) {
      out.push({ ...base(e), endpointId: null, callbackUrl, targetKey: callbackTargetKey(e, callbackUrl) });
    }
  }
  return out;
}

const distinctTenants = (items: readonly Tenant[]): Tenant[] => {
  const seen = new Map<string, Tenant>();
  for (const t of items) seen.set(`${t.merchantId}:${t.environment}`, { merchantId: t.merchantId, environment: t.environment });
  return [...seen.values()];
};

/**
 * Turns up to `limit` queued events into deliveries, in one short transaction: the queue rows
 * are locked (SKIP LOCKED, so several dispatchers take disjoint batches), the deliveries
 * inserted and the queue rows deleted together. A crash anywhere leaves the events queued.
 */
export async function fanOut(deps: { store: Store; clock: Clock }, limit: number): Promise<number> {
  // PGlite is one session: an idle poll must not take the transaction mutex from API requests.
  if (!(await anyQueuedEvent(deps.store))) return 0;
  return deps.store.transaction(async (tx) => {
    const queued = await lockQueuedEvents(tx, limit);
    if (queued.length === 0) return 0;
    const events: FanOutEvent[] = queued.flatMap((q) =>
      q.event === undefined
        ? []
        : [
            {
              id: q.eventId,
              merchantId: q.event.merchantId,
              environment: q.event.environment,
              type: q.event.type,
              paymentId: q.event.objectType === 'payment' ? q.event.objectId : q.event.relatedPaymentId,
            },
          ],
    );
    const endpoints = await enabledEndpointsOf(tx, distinctTenants(events));
    const callbackUrls = await callbackUrlsOf(
      tx,
      events.flatMap((e) =>
        e.paymentId === null ? [] : [{ id: e.paymentId, merchantId: e.merchantId, environment: e.environment }],
      ),
    );
    const now = deps.clock.now();
    await insertDeliveries(tx, planDeliveries(events, endpoints, callbackUrls, { trigger: 'event', now }), now);
    await dequeueEvents(
      tx,
      queued.map((q) => q.eventId),
    );
    return queued.length;
  });
}

// ---------------------------------------------------------------------------------------------
// Claim: take due deliveries and gather what sending them needs.

export type ReadyDelivery =
  | {
      claim: ClaimedDelivery;
      kind: 'send';
      url: string;
      body: string;
      secrets: string[];
      /** The endpoint had a failing streak when claimed: a success must clear it. */
      endpointFailing: boolean;
    }
  | { claim: ClaimedDelivery; kind: 'cancel'; reason: DeliveryFailureReason };

export async function claimReady(
  deps: DeliveryDeps,
  r: { limit: number; perTargetLimit: number; inFlight: ReadonlyMap<string, number>; scanLimit: number },
): Promise<ReadyDelivery[]> {
  const now = deps.clock.now();
  const {
    deliveries: claimed,
    payloads,
    endpoints,
  } = await claimDueDeliveries(deps.store, {
    now,
    leaseUntil: new Date(now.getTime() + deps.leaseMs),
    leaseToken: randomToken(12),
    limit: r.limit,
    perTargetLimit: r.perTargetLimit,
    inFlight: r.inFlight,
    scanLimit: r.scanLimit,
  });
  if (claimed.length === 0) return [];
  const callbackTenants = distinctTenants(claimed.filter((c) => c.callbackUrl !== null));
  const callbackSecrets =
    callbackTenants.length === 0 ? new Map() : await ensureCallbackSecrets(deps.store, deps.secretBox, callbackTenants, now);

  return claimed.map((claim): ReadyDelivery => {
    const payload = payloads.get(claim.eventId);
    // Deliveries reference their event (ON DELETE CASCADE): a claimed one always has it.
    assert(payload !== undefined, `delivery ${claim.id} has no event ${claim.eventId}`);
    const body = eventBody(payload, deps.eventObjectTemplate(payload.type));
    if (claim.endpointId !== null) {
      const endpoint = endpoints.get(claim.endpointId);
      if (endpoint === undefined) return { claim, kind: 'cancel', reason: 'endpoint_deleted' };
      if (endpoint.status !== 'enabled') return { claim, kind: 'cancel', reason: 'endpoint_disabled' };
      return {
        claim,
        kind: 'send',
        url: endpoint.url,
        body,
        secrets: signingSecrets(deps.secretBox, endpoint, endpointSecretContext(endpoint.id), now),
        endpointFailing: endpoint.failingSince !== null,
      };
    }
    const record = callbackSecrets.get(callbackSecretKey(claim));
    assert(record !== undefined && claim.callbackUrl !== null, `callback delivery ${claim.id} without secret or URL`);
    return {
      claim,
      kind: 'send',
      url: claim.callbackUrl,
      body,
      secrets: signingSecrets(deps.secretBox, record, callbackSecretContext(claim), now),
      endpointFailing: false,
    };
  });
}

// ---------------------------------------------------------------------------------------------
// Send and record.

interface Classified {
  outcome: AttemptOutcome;
  statusCode: number | null;
  gone: boolean;
  retryAfterMs: number | undefined;
  responseBody: string | null;
  error: string | null;
}

function classify(result: OutboundResult, now: Date): Classified {
  if (result.kind !== 'response') {
    return {
      outcome: result.kind,
      statusCode: null,
      gone: false,
      retryAfterMs: undefined,
      responseBody: null,
      error: result.error.slice(0, MAX_KEPT_ERROR_CHARS),
    };
  }
  const { outcome, gone } = outcomeOfStatus(result.status);
  const location = result.headers.location;
  return {
    outcome,
    statusCode: result.status,
    gone,
    retryAfterMs: outcome === 'succeeded' ? undefined : parseRetryAfterMs(result.headers['retry-after'], now),
    responseBody: result.body,
    error:
      outcome === 'redirect'
        ? `redirect${location === undefined ? '' : ` to ${location.slice(0, 300)}`} not followed: update the URL instead`
        : null,
  };
}

/** The delivery's fate after a failed attempt number `attemptNumber`. */
function afterFailure(deps: DeliveryDeps, c: Classified, attemptNumber: number, now: Date): DeliveryOutcome {
  if (c.gone) return { status: 'failed', reason: 'gone' };
  const delayMs = nextRetryDelayMs(attemptNumber, deps.random, c.retryAfterMs);
  if (delayMs === undefined) return { status: 'failed', reason: 'exhausted' };
  return { status: 'pending', nextAttemptAt: new Date(now.getTime() + delayMs) };
}

/** In the transaction that disabled the endpoint: its queue is canceled and the merchant told. */
async function onEndpointDisabled(tx: Queryable, endpoint: WebhookEndpoint, now: Date): Promise<void> {
  await cancelPendingDeliveriesOf(tx, { ...endpoint, endpointId: endpoint.id }, 'endpoint_disabled', now);
  const merchant = await findMerchant(tx, endpoint.merchantId);
  await insertEvent(tx, {
    merchantId: endpoint.merchantId,
    environment: endpoint.environment,
    type: 'webhook_endpoint.disabled',
    objectType: 'webhook_endpoint',
    objectId: endpoint.id,
    objectVersion: endpoint.version,
    apiVersion: merchant?.apiVersion ?? 'unknown',
    object: endpointView(endpoint),
    previousAttributes: { status: 'enabled', disabled_reason: null },
    now,
  });
}

export interface DeliveryReport {
  deliveryId: string;
  outcome: AttemptOutcome | 'canceled';
  status: DeliveryOutcome['status'];
  /** False when our lease had expired and another worker owned the delivery by then. */
  settled: boolean;
}

/** A claimed delivery after its send (or one to cancel unsent): what `recordDeliveries` writes. */
export type Finished =
  | { kind: 'cancel'; claim: ClaimedDelivery; reason: DeliveryFailureReason }
  | {
      kind: 'sent';
      claim: ClaimedDelivery;
      ready: Extract<ReadyDelivery, { kind: 'send' }>;
      sentAt: Date;
      at: Date;
      durationMs: number;
      classified: Classified;
      decision: DeliveryOutcome;
    };

/**
 * Sends one claimed delivery, outside any transaction; nothing is written yet. With tracing on,
 * each attempt is a trace of its own (a `webhook.deliver` client span; the receiver gets its
 * `traceparent`). Its attributes name the event, the delivery, the endpoint and the receiver's
 * host, never the URL (a receiver may carry a token in it), the body or the signature.
 */
export async function sendDelivery(deps: DeliveryDeps, ready: ReadyDelivery): Promise<Finished> {
  const c = ready.claim;
  if (ready.kind === 'cancel') return { kind: 'cancel', claim: c, reason: ready.reason };
  if (!tracingEnabled()) return sendOnce(deps, ready);
  const attributes = {
    'http.request.method': 'POST',
    'server.address': hostOf(ready.url),
    'tributary.event_id': c.eventId,
    'tributary.delivery_id': c.id,
    'tributary.merchant_id': c.merchantId,
    'tributary.delivery.attempt': c.attemptCount + 1,
    'tributary.webhook.target': c.endpointId ?? 'callback_url',
  };
  return withSpan('webhook.deliver', { kind: 'client', root: true, attributes }, async (span) => {
    const finished = await sendOnce(deps, ready);
    if (span !== undefined) {
      span.setAttribute('tributary.webhook.outcome', finished.classified.outcome);
      if (finished.classified.statusCode !== null) span.setAttribute('http.response.status_code', finished.classified.statusCode);
      if (finished.classified.outcome !== 'succeeded') markFailed(span, finished.classified.outcome);
    }
    return finished;
  });
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return 'invalid';
  }
}

async function sendOnce(
  deps: DeliveryDeps,
  ready: Extract<ReadyDelivery, { kind: 'send' }>,
): Promise<Extract<Finished, { kind: 'sent' }>> {
  const c = ready.claim;
  const sentAt = deps.clock.now();
  const timestamp = Math.floor(sentAt.getTime() / 1000);
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': c.eventId,
    'webhook-timestamp': String(timestamp),
    // The signature covers exactly these bytes; `body` is sent as it is, never re-serialised.
    'webhook-signature': signatureHeader(ready.secrets, c.eventId, timestamp, ready.body),
  };
  injectTraceHeaders(headers);
  const result = await deps.http.post({
    url: ready.url,
    headers,
    body: ready.body,
    connectTimeoutMs: deps.connectTimeoutMs,
    timeoutMs: deps.timeoutMs,
  });
  const at = deps.clock.now();
  const classified = classify(result, at);
  const decision: DeliveryOutcome =
    classified.outcome === 'succeeded' ? { status: 'succeeded' } : afterFailure(deps, classified, c.attemptCount + 1, at);
  return { kind: 'sent', claim: c, ready, sentAt, at, durationMs: Math.round(result.durationMs), classified, decision };
}

/**
 * An endpoint's failure streak and auto-disable, for the sends of a batch that need it (sorted by
 * endpoint). Returns the endpoints this batch disabled.
 */
async function noteEndpointOutcomes(
  tx: Queryable,
  deps: DeliveryDeps,
  sends: readonly Extract<Finished, { kind: 'sent' }>[],
): Promise<WebhookEndpoint[]> {
  const disabled: WebhookEndpoint[] = [];
  for (const f of sends) {
    const endpointKey = { id: f.claim.endpointId ?? '', merchantId: f.claim.merchantId, environment: f.claim.environment };
    if (f.classified.outcome === 'succeeded') {
      await noteEndpointSuccess(tx, endpointKey);
      continue;
    }
    await noteEndpointFailure(tx, endpointKey, f.at);
    const d = f.classified.gone
      ? await autoDisableEndpoint(tx, endpointKey, 'gone', f.at)
      : await autoDisableEndpoint(tx, endpointKey, 'failing', f.at, new Date(f.at.getTime() - deps.disableAfterMs));
    if (d !== undefined) {
      await onEndpointDisabled(tx, d, f.at);
      disabled.push(d);
    }
  }
  return disabled;
}

/**
 * Records a batch of finished deliveries in one short transaction: every attempt (logged whoever
 * owns the delivery now), every delivery's new state (fenced by its lease), and the endpoint
 * bookkeeping of failures and of recoveries. The dispatcher calls it with whatever finished while
 * the previous batch was being written (group commit), so a busy dispatcher writes few, larger
 * transactions and an idle one writes each delivery at once.
 */
export async function recordDeliveries(deps: DeliveryDeps, batch: readonly Finished[]): Promise<DeliveryReport[]> {
  if (batch.length === 0) return [];
  const now = deps.clock.now();
  const attempts = batch.flatMap((f) =>
    f.kind === 'cancel'
      ? []
      : [
          {
            id: newId('deliveryAttempt', f.at.getTime()),
            deliveryId: f.claim.id,
            attemptNumber: f.claim.attemptCount + 1,
            url: f.ready.url,
            outcome: f.classified.outcome,
            statusCode: f.classified.statusCode,
            durationMs: f.durationMs,
            responseBody: f.classified.responseBody,
            error: f.classified.error,
            attemptedAt: f.sentAt,
          },
        ],
  );
  const outcomes = batch.map((f): DeliveryResult =>
    f.kind === 'cancel'
      ? { delivery: f.claim, outcome: { status: 'canceled', reason: f.reason }, attempted: false, statusCode: null }
      : { delivery: f.claim, outcome: f.decision, attempted: true, statusCode: f.classified.statusCode },
  );
  // Endpoint rows in a fixed order, so concurrent batches cannot deadlock on them. A success
  // costs no endpoint write unless the endpoint was failing when claimed (a streak that started
  // since is cleared by the next success whose claim sees it).
  const bookkeeping = batch
    .filter((f): f is Extract<Finished, { kind: 'sent' }> => f.kind === 'sent' && f.claim.endpointId !== null)
    .filter((f) => f.classified.outcome !== 'succeeded' || f.ready.endpointFailing)
    .sort((a, b) => ((a.claim.endpointId ?? '') < (b.claim.endpointId ?? '') ? -1 : 1));
  // The common batch — every send answered 2xx by endpoints that were not failing — is one
  // statement; endpoint bookkeeping joins it in a transaction.
  const { settledIds, disabled } =
    bookkeeping.length === 0
      ? { settledIds: await recordAttempts(deps.store, attempts, outcomes, now), disabled: [] }
      : await deps.store.transaction(async (tx) => ({
          settledIds: await recordAttempts(tx, attempts, outcomes, now),
          disabled: await noteEndpointOutcomes(tx, deps, bookkeeping),
        }));

  for (const d of disabled) deps.log.warn({ endpoint_id: d.id, reason: d.disabledReason }, 'webhook endpoint disabled');
  return batch.map((f): DeliveryReport => {
    const c = f.claim;
    const settled = settledIds.has(c.id);
    if (f.kind === 'cancel') return { deliveryId: c.id, outcome: 'canceled', status: 'canceled', settled };
    const context = { delivery_id: c.id, event_id: c.eventId, endpoint_id: c.endpointId, attempt: c.attemptCount + 1 };
    if (!settled) deps.log.warn(context, 'webhook lease expired before the attempt was recorded; another worker owns it');
    if (f.decision.status === 'failed') {
      deps.log.warn({ ...context, reason: f.decision.reason, outcome: f.classified.outcome }, 'webhook delivery failed for good');
    }
    return { deliveryId: c.id, outcome: f.classified.outcome, status: f.decision.status, settled };
  });
}

/** Sends one claimed delivery and records its attempt on its own. */
export async function deliver(deps: DeliveryDeps, ready: ReadyDelivery): Promise<DeliveryReport> {
  const [report] = await recordDeliveries(deps, [await sendDelivery(deps, ready)]);
  assert(report !== undefined, 'one delivery recorded, one report');
  return report;
}

// ---------------------------------------------------------------------------------------------
// Redelivery (POST /event/{id}/redeliver)

export type RedeliveryTarget = { kind: 'all' } | { kind: 'endpoint'; endpointId: string } | { kind: 'callback_url' };

const eventPaymentId = (objectType: string, objectId: string, object: Record<string, unknown>): string | null => {
  if (objectType === 'payment') return objectId;
  return typeof object['payment_id'] === 'string' ? object['payment_id'] : null;
};

/**
 * Schedules the event again, as new deliveries with a fresh retry schedule (the old ones keep
 * their history). The `webhook-id` stays the event id, so a receiver that already processed
 * the event can recognise it.
 */
export async function redeliverEvent(
  deps: { store: Store; clock: Clock },
  tenant: Principal,
  eventId: string,
  target: RedeliveryTarget,
): Promise<Result<{ deliveries: DeliveryRecord[] }>> {
  const event = await findEvent(deps.store, tenant.merchantId, tenant.environment, eventId);
  if (event === undefined) return failure('resource_not_found', 'No such event.');
  const fanOutEvent: FanOutEvent = {
    id: event.id,
    merchantId: tenant.merchantId,
    environment: tenant.environment,
    type: event.type,
    paymentId: eventPaymentId(event.objectType, event.objectId, event.payload.data.object),
  };
  const paymentKeys = fanOutEvent.paymentId === null ? [] : [{ ...tenant, id: fanOutEvent.paymentId }];

  let endpoints: WebhookEndpoint[] = [];
  let callbackUrls = new Map<string, string>();
  if (target.kind === 'endpoint') {
    const endpoint = await findEndpoint(deps.store, tenant.merchantId, tenant.environment, target.endpointId);
    if (endpoint === undefined) return failure('resource_not_found', 'No such webhook endpoint.');
    if (endpoint.status !== 'enabled') {
      return failure('webhook_endpoint_disabled', 'The webhook endpoint is disabled; enable it first.', [
        { endpoint_id: endpoint.id, disabled_reason: endpoint.disabledReason },
      ]);
    }
    endpoints = [endpoint];
  } else if (target.kind === 'callback_url') {
    callbackUrls = await callbackUrlsOf(deps.store, paymentKeys);
    if (callbackUrls.size === 0) {
      return failure('invalid_request', 'This event has no callback_url to deliver to.', [
        { field: 'callback_url', issue: 'no_callback_url', message: "the event's payment has no callback_url" },
      ]);
    }
  } else {
    endpoints = await enabledEndpointsOf(deps.store, [tenant]);
    callbackUrls = await callbackUrlsOf(deps.store, paymentKeys);
  }

  const now = deps.clock.now();
  const planned = planDeliveries([fanOutEvent], endpoints, callbackUrls, {
    trigger: 'redelivery',
    now,
    ignoreFilters: target.kind === 'endpoint',
  });
  await deps.store.transaction(async (tx) => {
    await insertDeliveries(tx, planned, now);
    await recordAudit(tx, tenant, {
      action: 'event.redelivered',
      objectType: 'event',
      objectId: event.id,
      changes: {
        target: target.kind,
        ...(target.kind === 'endpoint' ? { endpoint_id: target.endpointId } : {}),
        deliveries: planned.length,
      },
      at: now,
    });
  });
  return {
    ok: true,
    deliveries: planned.map((d) => ({
      id: d.id,
      eventId: d.eventId,
      endpointId: d.endpointId,
      callbackUrl: d.callbackUrl,
      trigger: d.trigger,
      status: 'pending',
      failureReason: null,
      attemptCount: 0,
      nextAttemptAt: now,
      lastAttemptAt: null,
      lastStatusCode: null,
      createdAt: now,
      completedAt: null,
      attempts: [],
    })),
  };
}

export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    object: 'webhook_delivery' as const,
    event_id: d.eventId,
    target: d.endpointId === null ? ('callback_url' as const) : ('webhook_endpoint' as const),
    endpoint_id: d.endpointId,
    callback_url: d.callbackUrl,
    trigger: d.trigger,
    status: d.status,
    failure_reason: d.failureReason,
    attempt_count: d.attemptCount,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    last_attempt_at: d.lastAttemptAt?.toISOString() ?? null,
    last_status_code: d.lastStatusCode,
    created_at: d.createdAt.toISOString(),
    completed_at: d.completedAt?.toISOString() ?? null,
    attempts: d.attempts.map((a) => ({
      id: a.id,
      object: 'webhook_attempt' as const,
      attempt_number: a.attemptNumber,
      url: a.url,
      outcome: a.outcome,
      status_code: a.statusCode,
      duration_ms: a.durationMs,
      response_body: a.responseBody,
      error: a.error,
      attempted_at: a.attemptedAt.toISOString(),
    })),
  };
}
