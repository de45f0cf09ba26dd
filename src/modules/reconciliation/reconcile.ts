import { fetchSettlementReport } from '../../connectors/core/provider-call.ts';
import { createHash } from 'node:crypto';
import type { SettlementEntry } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Queryable } from '../../db/store.ts';
import type { FieldIssue } from '../../lib/error-catalogue.ts';
import { newId } from '../../lib/ids.ts';
import { insertEvent } from '../events/index.ts';
import {
  type KeyDecision,
  canonicalJson,
  deleteStartedKey,
  existingKeyDecision,
  finishKey,
  keyedOperation,
  startKeyedOperation,
} from '../idempotency/index.ts';
import { findAttemptOwner } from '../payments/index.ts';
import { compareReport, type Comparison, type ReportLine } from './compare-report.ts';
import {
  findCaptured,
  findOurSettlements,
  findReconciliationByInputs,
  insertReconciliation,
  numberLines,
  type Reconciliation,
} from './reconciliation-repo.ts';
import { firstLinePage, reconciliationSummaryView, reconciliationView } from './reconciliation-view.ts';
import type { KeyedResult, LifecycleDeps, Principal } from '../../kernel/index.ts';
import { recordAudit } from '../audit/index.ts';

/**
 * POST /reconciliation/create without the HTTP (docs/money.md "Reconciliation"). Fetches the
 * provider's settlement report for the window (outside any transaction, with a deadline), keeps
 * the lines that are the calling merchant's in this environment, compares them with our settled
 * payments, and stores the result with its events (`reconciliation.completed`, and
 * `reconciliation.discrepancy` when anything differs) in one transaction.
 *
 * Idempotent twice over: an `Idempotency-Key` replays the stored answer; and the same connector,
 * window and inputs (the report's lines and our records, hashed) answer the reconciliation that
 * already exists (200) instead of making a second one (201): re-running changes nothing.
 */
export interface ReconcileDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  connectorTimeoutMs: number;
  idempotencyLeaseMs: number;
  idempotencyTtlMs: number;
}

export const RECONCILE_OPERATION = 'reconciliation.create';
/** The longest window one reconciliation covers (a provider report of one month). */
export const MAX_WINDOW_MS = 31 * 24 * 3_600_000;

export interface ReconcileInput {
  connector: string;
  from: Date;
  to: Date;
}

type Failure = Extract<KeyedResult, { kind: 'failure' }>;
const invalid = (issues: FieldIssue[]): Failure => ({
  kind: 'failure',
  code: 'invalid_request',
  message: 'The request has invalid fields.',
  details: issues,
});

/** The checks before any work: a refusal stores nothing. */
export function checkReconcileInput(
  deps: Pick<ReconcileDeps, 'connectors'>,
  principal: Principal,
  input: ReconcileInput,
): Failure | undefined {
  const issues: FieldIssue[] = [];
  if (input.from >= input.to) issues.push({ field: 'to', issue: 'not_after_from', message: 'to must be later than from' });
  else if (input.to.getTime() - input.from.getTime() > MAX_WINDOW_MS) {
    issues.push({ field: 'to', issue: 'window_too_long', message: 'a reconciliation covers at most 31 days' });
  }
  const enabled = deps.connectors.enabledFor(principal.environment).find((c) => c.connector === input.connector);
  if (enabled === undefined) {
    issues.push({ field: 'connector', issue: 'unknown_connector', message: 'no connector of that name serves this environment' });
  }
  if (issues.length > 0) return invalid(issues);
  if (enabled !== undefined && !enabled.supports.settlement) {
    return {
      kind: 'failure',
      code: 'operation_not_supported',
      message: 'This connector does not report settlements.',
      details: [{ connector: input.connector }],
    };
  }
  return undefined;
}

export async function createReconciliation(
  deps: ReconcileDeps,
  principal: Principal,
  input: ReconcileInput,
  idempotencyKey: string | undefined,
): Promise<KeyedResult> {
  const keyDeps = { store: deps.store, clock: deps.clock, leaseMs: deps.idempotencyLeaseMs, ttlMs: deps.idempotencyTtlMs };
  const request = { connector: input.connector, from: input.from.toISOString(), to: input.to.toISOString() };
  const op = keyedOperation(
    principal,
    RECONCILE_OPERATION,
    idempotencyKey,
    request,
    `${input.connector}:${request.from}:${request.to}`,
  );
  let decision: KeyDecision | undefined = op === undefined ? undefined : await existingKeyDecision(keyDeps, op);
  if (decision?.kind === 'answer') return decision.result;
  let leaseToken = decision?.kind === 'proceed' ? decision.leaseToken : undefined;
  const forget = async () => {
    if (op !== undefined && leaseToken !== undefined) await deleteStartedKey(deps.store, op.scope, leaseToken);
  };

  const refused = checkReconcileInput(deps, principal, input);
  if (refused !== undefined) {
    await forget();
    return refused;
  }
  if (op !== undefined && decision === undefined) {
    decision = await startKeyedOperation(keyDeps, op);
    if (decision.kind === 'answer') return decision.result;
    leaseToken = decision.leaseToken;
  }

  const report = await fetchReport(deps, input);
  if (report === undefined) {
    await forget();
    return {
      kind: 'failure',
      code: 'provider_unavailable',
      message: "The provider's settlement report could not be read. Retry shortly.",
      details: [{ connector: input.connector }],
      retryAfterSeconds: 5,
    };
  }
  const lines = await attribute(deps, principal, input.connector, report);
  const named = [...new Set(lines.flatMap((l) => (l.paymentId === null ? [] : [l.paymentId])))];
  const ours = await findOurSettlements(deps.store, principal.merchantId, principal.environment, input.connector, input, named);
  const unsettled = named.filter((id) => !ours.has(id));
  const captured = await findCaptured(deps.store, principal.merchantId, principal.environment, unsettled);
  const comparison = compareReport(input, lines, ours, captured);
  const now = deps.clock.now();
  const candidate: Reconciliation = {
    id: newId('reconciliation', now.getTime()),
    merchantId: principal.merchantId,
    environment: principal.environment,
    connector: input.connector,
    from: input.from,
    to: input.to,
    inputsHash: inputsHash(comparison),
    status: comparison.discrepancies === 0 ? 'matched' : 'discrepancies',
    reportLines: lines.length,
    matchedCount: comparison.matched,
    discrepancyCount: comparison.discrepancies,
    counts: comparison.counts,
    apiVersion: principal.apiVersion,
    createdAt: now,
  };

  return deps.store.transaction(async (tx): Promise<KeyedResult> => {
    const lines = numberLines(comparison.lines);
    const created = await insertReconciliation(tx, candidate, lines);
    let status = 201;
    let stored = candidate;
    if (created) {
      await insertReconciliationEvents(tx, candidate);
      await recordAudit(tx, principal, {
        action: 'reconciliation.created',
        objectType: 'reconciliation',
        objectId: candidate.id,
        changes: {
          connector: input.connector,
          from: input.from.toISOString(),
          to: input.to.toISOString(),
          status: candidate.status,
        },
        at: now,
      });
    } else {
      const existing = await findReconciliationByInputs(tx, candidate);
      if (existing === undefined) throw new Error('reconciliation conflicted but cannot be found');
      stored = existing;
      status = 200;
    }
    const body = JSON.stringify(reconciliationView(stored, firstLinePage(lines)));
    if (op !== undefined && leaseToken !== undefined) {
      const finished = await finishKey(tx, op.scope, {
        leaseToken,
        responseStatus: status,
        responseBody: body,
        now,
        expiresAt: new Date(now.getTime() + deps.idempotencyTtlMs),
      });
      if (!finished) {
        return {
          kind: 'failure',
          code: 'idempotency_request_in_progress',
          message: 'A request with this Idempotency-Key is still running.',
          details: [],
          retryAfterSeconds: 1,
        };
      }
    }
    return { kind: 'response', status, body, replayed: false };
  });
}

async function fetchReport(deps: ReconcileDeps, input: ReconcileInput): Promise<SettlementEntry[] | undefined> {
  const connector = deps.connectors.get(input.connector);
  return connector === undefined ? undefined : fetchSettlementReport(deps, connector, input.from, input.to);
}

/**
 * The report lines that are this merchant's in this environment. A line says whose it is by the
 * owner metadata the provider echoes (as on notifications); without it, by the attempt id it
 * names. Its payment is ours only when the attempt agrees with the owner; otherwise the line's
 * reference is unknown to us.
 */
async function attribute(
  deps: ReconcileDeps,
  principal: Principal,
  connector: string,
  report: readonly SettlementEntry[],
): Promise<ReportLine[]> {
  const out: ReportLine[] = [];
  for (const e of report) {
    const attempt = await findAttemptOwner(deps.store, connector, e.attemptId);
    const ownedByAttempt =
      attempt !== undefined && attempt.merchantId === principal.merchantId && attempt.environment === principal.environment;
    const claimsUs =
      e.owner === null
        ? ownedByAttempt
        : e.owner.merchantId === principal.merchantId && e.owner.environment === principal.environment;
    if (!claimsUs) continue;
    const agrees =
      ownedByAttempt &&
      (e.owner === null || e.owner.paymentId === attempt.paymentId) &&
      (attempt.providerReference === null || attempt.providerReference === e.providerReference);
    out.push({
      providerReference: e.providerReference,
      paymentId: agrees ? attempt.paymentId : null,
      currency: e.currency,
      grossMinor: e.grossMinor,
      feeMinor: e.feeMinor,
      netMinor: e.netMinor,
      settledAt: e.settledAt,
    });
  }
  return out;
}

/** What was compared, canonically: the same inputs give the same hash (and the same reconciliation). */
function inputsHash(c: Comparison): string {
  const rows = c.lines.map((l) => [
    l.result,
    l.paymentId,
    l.providerReference,
    l.report === null
      ? null
      : [
          l.report.currency,
          `${l.report.grossMinor}`,
          `${l.report.feeMinor}`,
          `${l.report.netMinor}`,
          l.report.settledAt.toISOString(),
        ],
    l.ours === null
      ? null
      : [
          l.ours.settlementId,
          l.ours.currency,
          `${l.ours.grossMinor}`,
          `${l.ours.feeMinor}`,
          `${l.ours.netMinor}`,
          l.ours.settledAt.toISOString(),
        ],
  ]);
  return createHash('sha256').update(canonicalJson(rows)).digest('hex');
}

async function insertReconciliationEvents(tx: Queryable, r: Reconciliation): Promise<void> {
  const types =
    r.status === 'matched' ? ['reconciliation.completed'] : ['reconciliation.completed', 'reconciliation.discrepancy'];
  for (const type of types) {
    await insertEvent(tx, {
      merchantId: r.merchantId,
      environment: r.environment,
      type,
      objectType: 'reconciliation',
      objectId: r.id,
      objectVersion: 1,
      apiVersion: r.apiVersion,
      object: reconciliationSummaryView(r),
      previousAttributes: {},
      now: r.createdAt,
    });
  }
}
