import { fetchSettlementReport } from '../../connectors/core/provider-call.ts';
import type { Connector, SettlementEntry } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import { assert } from '../../lib/assert.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { newId } from '../../lib/ids.ts';
import { paymentPendingMinor, postEntry, settlementEntry } from '../ledger/index.ts';
import { type Payment, findAttemptOwner, insertPaymentEvent, lockPayment } from '../payments/index.ts';
import type { ExceptionKind } from './settlement-exception-repo.ts';
import { recordSettlementException } from './settlement-exceptions.ts';
import {
  advanceCursor,
  findLineOfPayment,
  insertSettlement,
  markPaymentSettled,
  readCursor,
  type SettlementLine,
} from './settlement-repo.ts';
import type { Environment, LifecycleDeps } from '../../kernel/index.ts';

/**
 * Settlement ingestion (docs/money.md "Settlement"). For each connector that reports settlements:
 * fetch the provider's report for the window after the connector's cursor (outside any
 * transaction, with a deadline), map each line to our payment by the attempt id the provider
 * echoes, and write one settlement batch per merchant × environment × currency in one transaction:
 * each payment locked, its settlement fields set (version + 1), its `payment.settled` event, and
 * the settlement ledger entry. Lines we cannot apply are recorded as exceptions, never applied.
 *
 * Idempotent: a payment settles once (a UNIQUE line per payment, checked under the payment's
 * lock), so ingesting the same report again changes nothing; that is what lets every run re-read
 * a LOOKBACK_MS overlap before the cursor and catch lines the provider dated a little late.
 */
export interface SettlementDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  connectorTimeoutMs: number;
}

/** Each run re-reads this much before the cursor (lines dated late by the provider). */
export const LOOKBACK_MS = 3_600_000;
/** Where the first run of a connector starts. */
export const FIRST_WINDOW_MS = 30 * 24 * 3_600_000;

export interface IngestSummary {
  connectors: number;
  settlements: string[];
  settledPayments: number;
  exceptions: number;
  /** Connectors whose report could not be read (their cursor did not move). */
  unavailable: string[];
}

export async function ingestSettlements(deps: SettlementDeps, only?: string): Promise<IngestSummary> {
  const summary: IngestSummary = { connectors: 0, settlements: [], settledPayments: 0, exceptions: 0, unavailable: [] };
  for (const connector of deps.connectors.all()) {
    const name = connector.capabilities.connector;
    if (!connector.capabilities.supports.settlement || (only !== undefined && only !== name)) continue;
    summary.connectors += 1;
    await ingestConnector(deps, connector, summary);
  }
  return summary;
}

async function ingestConnector(deps: SettlementDeps, connector: Connector, summary: IngestSummary): Promise<void> {
  const name = connector.capabilities.connector;
  const now = deps.clock.now();
  const cursor = await readCursor(deps.store, name);
  const from = new Date((cursor?.getTime() ?? now.getTime() - FIRST_WINDOW_MS) - LOOKBACK_MS);
  // `to` is exclusive: a line settled at this very instant belongs to this run.
  const to = new Date(now.getTime() + 1);
  const report = await fetchSettlementReport(deps, connector, from, to);
  if (report === undefined) {
    summary.unavailable.push(name);
    return;
  }
  await applyReport(deps, name, report, summary);
  await advanceCursor(deps.store, name, to, deps.clock.now());
  deps.log.info(
    { connector: name, lines: report.length, settlements: summary.settlements.length, exceptions: summary.exceptions },
    'settlement report ingested',
  );
}

/**
 * A settlement report an operator imports (`tributary settlement import`), for a provider whose
 * report is a file rather than an API (Midtrans: docs/connectors.md). Applied exactly as a fetched
 * report, so importing the same file twice settles nothing twice; the connector's cursor is not
 * moved (it is the fetch schedule's).
 */
export async function importSettlementReport(
  deps: SettlementDeps,
  connector: string,
  report: readonly SettlementEntry[],
): Promise<IngestSummary> {
  assert(deps.connectors.get(connector) !== undefined, `unknown connector ${connector}`);
  const summary: IngestSummary = { connectors: 1, settlements: [], settledPayments: 0, exceptions: 0, unavailable: [] };
  await applyReport(deps, connector, report, summary);
  deps.log.info(
    { connector, lines: report.length, settlements: summary.settlements.length, exceptions: summary.exceptions },
    'settlement report imported',
  );
  return summary;
}

/** Maps each line to its payment and writes the settlement batches and exceptions. */
async function applyReport(
  deps: SettlementDeps,
  name: string,
  report: readonly SettlementEntry[],
  summary: IngestSummary,
): Promise<void> {
  const now = deps.clock.now();
  // Group by owner (read-only lookups; everything is checked again under the payment's lock).
  const groups = new Map<string, { merchantId: string; environment: Environment; currency: string; lines: Resolved[] }>();
  for (const entry of report) {
    const owner = await findAttemptOwner(deps.store, name, entry.attemptId);
    const claimed = entry.owner;
    const mismatch =
      owner !== undefined &&
      claimed !== null &&
      (claimed.merchantId !== owner.merchantId ||
        claimed.environment !== owner.environment ||
        claimed.paymentId !== owner.paymentId);
    if (
      owner === undefined ||
      mismatch ||
      (owner.providerReference !== null && owner.providerReference !== entry.providerReference)
    ) {
      const recorded = await deps.store.transaction((tx) =>
        recordSettlementException(tx, {
          ...exceptionOf(name, entry, 'unknown_reference', now),
          merchantId: claimed?.merchantId ?? null,
          environment: claimed?.environment ?? null,
          paymentId: claimed?.paymentId ?? null,
          detail:
            owner === undefined ? 'no attempt of this connector has this id' : 'the line names another payment or reference',
        }),
      );
      if (recorded) summary.exceptions += 1;
      continue;
    }
    const key = `${owner.merchantId}|${owner.environment}|${entry.currency}`;
    const group = groups.get(key) ?? {
      merchantId: owner.merchantId,
      environment: owner.environment,
      currency: entry.currency,
      lines: [],
    };
    group.lines.push({ entry, paymentId: owner.paymentId });
    groups.set(key, group);
  }

  for (const group of groups.values()) {
    const result = await applyGroup(deps, name, group.merchantId, group.environment, group.currency, group.lines);
    if (result.settlementId !== undefined) summary.settlements.push(result.settlementId);
    summary.settledPayments += result.settled;
    summary.exceptions += result.exceptions;
  }
}

interface Resolved {
  entry: SettlementEntry;
  paymentId: string;
}

const exceptionOf = (connector: string, e: SettlementEntry, kind: ExceptionKind, now: Date) => ({
  connector,
  providerReference: e.providerReference,
  attemptId: e.attemptId,
  settledAt: e.settledAt,
  kind,
  grossMinor: e.grossMinor,
  feeMinor: e.feeMinor,
  currency: e.currency,
  now,
});

/** Why a line cannot settle its payment, or null when it can. */
function problemOf(payment: Payment, e: SettlementEntry): { kind: ExceptionKind; detail: string } | null {
  if (payment.status !== 'succeeded') return { kind: 'not_succeeded', detail: `the payment is ${payment.status}` };
  if (e.currency !== payment.currency) return { kind: 'currency_mismatch', detail: `the payment is in ${payment.currency}` };
  if (e.feeMinor < 0n || e.feeMinor > e.grossMinor || e.netMinor !== e.grossMinor - e.feeMinor) {
    return { kind: 'amount_mismatch', detail: 'gross, fee and net do not add up' };
  }
  if (e.grossMinor !== payment.amountPaidMinor) {
    return { kind: 'amount_mismatch', detail: `the payer paid ${payment.amountPaidMinor} minor units` };
  }
  return null;
}

async function applyGroup(
  deps: SettlementDeps,
  connector: string,
  merchantId: string,
  environment: Environment,
  currency: string,
  lines: Resolved[],
): Promise<{ settlementId?: string; settled: number; exceptions: number }> {
  // Payments in id order: two runs lock them in the same order and cannot deadlock.
  const ordered = [...lines].sort((a, b) => (a.paymentId < b.paymentId ? -1 : a.paymentId > b.paymentId ? 1 : 0));
  return deps.store.transaction(async (tx) => {
    const now = deps.clock.now();
    const settlementId = newId('settlement', now.getTime());
    const apply: { payment: Payment; entry: SettlementEntry }[] = [];
    const seen = new Set<string>();
    let exceptions = 0;
    for (const { entry, paymentId } of ordered) {
      // The same payment twice in one report (a duplicate line) settles once.
      if (seen.has(paymentId)) continue;
      seen.add(paymentId);
      const payment = await lockPayment(tx, merchantId, environment, paymentId);
      assert(payment !== undefined, `attempt ${entry.attemptId} names a payment that does not exist`);
      if (payment.settlementId !== null) {
        const line = await findLineOfPayment(tx, paymentId);
        const same =
          line !== undefined &&
          line.grossMinor === entry.grossMinor &&
          line.feeMinor === entry.feeMinor &&
          line.providerReference === entry.providerReference;
        // Ingesting the same line again is the normal case of an overlapping window: nothing to do.
        if (same) continue;
        if (
          await recordSettlementException(tx, {
            ...base(connector, entry, now, payment),
            kind: 'already_settled',
            detail: `settled in ${payment.settlementId}`,
          })
        )
          exceptions += 1;
        continue;
      }
      const problem = problemOf(payment, entry);
      if (problem !== null) {
        if (await recordSettlementException(tx, { ...base(connector, entry, now, payment), ...problem })) exceptions += 1;
        continue;
      }
      apply.push({ payment, entry });
    }
    if (apply.length === 0) return { settled: 0, exceptions };

    const settlementLines: SettlementLine[] = apply.map(({ payment, entry }) => ({
      settlementId,
      paymentId: payment.id,
      attemptId: entry.attemptId,
      providerReference: entry.providerReference,
      grossMinor: entry.grossMinor,
      feeMinor: entry.feeMinor,
      netMinor: entry.netMinor,
      settledAt: entry.settledAt,
    }));
    const sum = (f: (l: SettlementLine) => bigint) => settlementLines.reduce((s, l) => s + f(l), 0n);
    // The period a batch covers runs from when its first payment was paid to when its last one
    // settled. (It used to be the span of the settlement times alone, and a provider settles a
    // batch at one instant: every period showed its start equal to its end.)
    const paidTimes = apply.map(({ payment, entry }) => (payment.succeededAt ?? entry.settledAt).getTime());
    const settledTimes = settlementLines.map((l) => l.settledAt.getTime());
    await insertSettlement(
      tx,
      {
        id: settlementId,
        merchantId,
        environment,
        connector,
        currency: currency as CurrencyCode,
        grossMinor: sum((l) => l.grossMinor),
        feeMinor: sum((l) => l.feeMinor),
        netMinor: sum((l) => l.netMinor),
        paymentCount: settlementLines.length,
        periodStart: new Date(Math.min(...paidTimes, ...settledTimes)),
        periodEnd: new Date(Math.max(...settledTimes)),
        createdAt: now,
      },
      settlementLines,
    );
    for (const { payment, entry } of apply) {
      const after: Payment = {
        ...payment,
        settlementId,
        settledAt: entry.settledAt,
        feeMinor: entry.feeMinor,
        netMinor: entry.netMinor,
        version: payment.version + 1,
        updatedAt: now,
      };
      assert(await markPaymentSettled(tx, payment, after), `payment ${payment.id} changed under its lock`);
      await insertPaymentEvent(tx, deps.publicBaseUrl, 'payment.settled', payment, after);
      const pendingMinor = await paymentPendingMinor(tx, merchantId, environment, payment.id);
      await postEntry(
        tx,
        settlementEntry({ merchantId, environment, currency: payment.currency, now }, settlementId, payment.id, {
          grossMinor: entry.grossMinor,
          feeMinor: entry.feeMinor,
          pendingMinor,
        }),
      );
    }
    return { settlementId, settled: apply.length, exceptions };
  });
}

const base = (connector: string, e: SettlementEntry, now: Date, p: Payment) => ({
  ...exceptionOf(connector, e, 'amount_mismatch', now),
  merchantId: p.merchantId,
  environment: p.environment,
  paymentId: p.id,
});
