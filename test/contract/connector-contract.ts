import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type CallContext,
  type ChargeRequest,
  type Connector,
  type InboundNotification,
  PROVIDER_CHARGE_STATUSES,
  type ProviderChargeStatus,
} from '../../src/connectors/core/connector.ts';
import { isCurrencyCode, type CurrencyCode } from '../../src/lib/currencies.ts';
import { newId } from '../../src/lib/ids.ts';
import type { ManualClock } from '../../src/lib/clock.ts';
import { CHANNELS } from '../../src/kernel/index.ts';

/**
 * The connector contract suite: what every connector must do, whatever its provider. A connector
 * passes it by supplying a harness (how to reach its provider's test environment and make the
 * provider act); test/contract/sandbox-connectors.contract.test.ts runs it for the three sandbox
 * connectors, and docs/connectors.md shows how to run it for a new one.
 */
export interface ContractHarness {
  connector: Connector;
  clock: ManualClock;
  /** A currency and amount the connector accepts. */
  currency: CurrencyCode;
  amountMinor: bigint;
  /** The connector's one status map (wire status → our status). */
  statusMap: Readonly<Record<string, ProviderChargeStatus>>;
  /** Makes the provider act on a charge and returns the notification it sent (null for `settled`). */
  trigger(providerReference: string, action: 'paid' | 'failed' | 'reversed' | 'settled'): Promise<InboundNotification | null>;
  /** Makes the provider hang on the next create until the caller gives up. */
  hangNextCreate(): void;
  /** How many charges the provider holds (to prove that a re-sent attempt makes none). */
  chargeCount(): number;
  /** Everything the connector logged so far, and the secrets that must never appear in it. */
  logs(): string;
  secrets: readonly string[];
  /** A secret the provider does not sign with (to forge a notification). */
  foreignSecret: string;
  signatureHeader: string;
  /** Signs a body as the provider would, with the given secret and time (for tamper tests). */
  sign(secret: string, body: string, at: Date): string;
  /**
   * How the provider authenticates notifications (default `timestamped`):
   * - `timestamped`: a signature over the whole body and a timestamp (tampered and stale refused);
   * - `body`: a signature without a timestamp, over the body or some of its fields (no stale check;
   *   `tamper` changes a signed field);
   * - `token`: a static shared token (neither check is possible: the connector must declare
   *   `notificationTrust: 'query'`, so a notification is only a trigger for a status query).
   */
  notificationScheme?: 'timestamped' | 'body' | 'token';
  /** A copy of the notification with a signed field changed (default: its first digit). */
  tamper?(notification: InboundNotification): InboundNotification;
  /** The notification as signed with `secret` instead (default: the signature header replaced). */
  resign?(notification: InboundNotification, secret: string, at: Date): InboundNotification;
  /** The notification without its signature or token (default: no headers). */
  unsign?(notification: InboundNotification): InboundNotification;
  /**
   * Whether the provider echoes our owner metadata on the charge (default true). When false (e.g.
   * Xendit virtual accounts) the snapshot's owner must be null: the attempt id finds the payment.
   */
  echoesOwner?: boolean;
}

const DEADLINE_MS = 1_500;

export function connectorContract(name: string, makeHarness: () => Promise<ContractHarness & { close(): Promise<void> }>): void {
  describe(`connector contract: ${name}`, () => {
    let h: ContractHarness & { close(): Promise<void> };
    const ctx = (deadlineMs = DEADLINE_MS): CallContext => ({ signal: AbortSignal.timeout(deadlineMs), now: h.clock.now() });
    const request = (overrides: Partial<ChargeRequest> = {}): ChargeRequest => {
      const now = h.clock.now();
      return {
        attemptId: newId('attempt', now.getTime()),
        paymentId: newId('payment', now.getTime()),
        merchantId: 'mer_contract',
        merchantName: 'Contract Shop',
        environment: 'sandbox',
        amountMinor: h.amountMinor,
        currency: h.currency,
        instrument: h.connector.capabilities.instruments[0]?.code ?? '',
        referenceNo: `contract-${now.getTime()}`,
        description: null,
        email: 'payer@example.com',
        expiresAt: new Date(now.getTime() + h.connector.capabilities.instructionTtl.defaultMs),
        ...overrides,
      };
    };
    const issue = async (overrides: Partial<ChargeRequest> = {}) => {
      const r = request(overrides);
      const outcome = await h.connector.createCharge(r, ctx());
      assert.equal(outcome.kind, 'issued', JSON.stringify(outcome));
      if (outcome.kind !== 'issued') throw new Error('not issued');
      return { request: r, outcome };
    };

    it('setup', async () => {
      h = await makeHarness();
    });

    it('declares well-formed capabilities', () => {
      const c = h.connector.capabilities;
      assert.match(c.connector, /^[a-z][a-z0-9_]{1,40}$/);
      assert.ok(CHANNELS.includes(c.channel));
      assert.ok(c.instruments.length > 0);
      assert.equal(new Set(c.instruments.map((i) => i.code)).size, c.instruments.length, 'instrument codes are unique');
      assert.ok(Object.keys(c.currencies).length > 0);
      for (const [currency, bounds] of Object.entries(c.currencies)) {
        assert.ok(isCurrencyCode(currency), `${currency} is ISO 4217`);
        assert.ok(bounds.minMinor > 0n && bounds.minMinor <= bounds.maxMinor, `${currency} bounds`);
      }
      const ttl = c.instructionTtl;
      assert.ok(ttl.minMs > 0 && ttl.minMs <= ttl.defaultMs && ttl.defaultMs <= ttl.maxMs);
      if (c.supports.partialRefund) assert.ok(c.supports.refund, 'partial refunds imply refunds');
    });

    it('has one status map that reaches every final status', () => {
      const targets = new Set(Object.values(h.statusMap));
      for (const status of Object.values(h.statusMap)) assert.ok(PROVIDER_CHARGE_STATUSES.includes(status));
      // `canceled` only where the provider can cancel (supports.cancel).
      const needs = ['pending', 'paid', 'failed', 'expired', 'canceled', 'reversed'] as const;
      for (const needed of needs.filter((s) => s !== 'canceled' || h.connector.capabilities.supports.cancel)) {
        assert.ok(targets.has(needed), `some wire status maps to ${needed}`);
      }
    });

    it("issues the channel's instructions with the requested expiry", async () => {
      const { request: r, outcome } = await issue();
      const type = { bank: 'virtual_account', ewallet: 'ewallet', counter: 'counter' }[h.connector.capabilities.channel];
      assert.equal(outcome.instructions.type, type);
      assert.ok(outcome.providerReference.length > 0);
      assert.equal(outcome.expiresAt.toISOString(), r.expiresAt.toISOString());
      for (const [field, value] of Object.entries(outcome.instructions)) {
        assert.ok(value !== '' && value !== undefined, `instructions.${field} is filled`);
      }
    });

    it('dedupes a re-sent attempt: same charge, same instructions, no second charge', async () => {
      const { request: r, outcome } = await issue();
      const before = h.chargeCount();
      const again = await h.connector.createCharge(r, ctx());
      assert.deepEqual(again, outcome);
      assert.equal(h.chargeCount(), before);
      const other = await issue();
      assert.notEqual(other.outcome.providerReference, outcome.providerReference);
      assert.notDeepEqual(other.outcome.instructions, outcome.instructions);
    });

    it('refuses an unknown instrument definitely', async () => {
      const outcome = await h.connector.createCharge(request({ instrument: 'NO_SUCH_INSTRUMENT' }), ctx());
      assert.equal(outcome.kind, 'refused');
    });

    it('answers "unknown" (never throws) when the provider does not answer in time', async () => {
      h.hangNextCreate();
      const started = Date.now();
      const outcome = await h.connector.createCharge(request(), ctx(300));
      assert.equal(outcome.kind, 'unknown');
      if (outcome.kind === 'unknown') assert.equal(outcome.code, 'timeout');
      assert.ok(Date.now() - started < 300 + 5_000, 'returns soon after the deadline');
    });

    it('reads a charge: owner, attempt, amount and status; an unknown one is not_found', async () => {
      const { request: r, outcome } = await issue();
      const q = await h.connector.queryCharge({ attemptId: r.attemptId, providerReference: outcome.providerReference }, ctx());
      assert.equal(q.kind, 'found');
      if (q.kind !== 'found') return;
      assert.equal(q.snapshot.status, 'pending');
      assert.equal(q.snapshot.attemptId, r.attemptId);
      const owner = { merchantId: r.merchantId, environment: r.environment, paymentId: r.paymentId };
      assert.deepEqual(q.snapshot.owner, h.echoesOwner === false ? null : owner);
      assert.equal(q.snapshot.amountMinor, r.amountMinor);
      assert.equal(q.snapshot.amountPaidMinor, 0n);
      assert.ok(q.snapshot.sequence >= 1);
      const missing = await h.connector.queryCharge({ attemptId: r.attemptId, providerReference: 'nope_0000' }, ctx());
      assert.equal(missing.kind, 'not_found');
    });

    it('verifies and parses a signed notification; refuses tampered, foreign, stale and unsigned ones (as its scheme allows)', async () => {
      const { request: r, outcome } = await issue();
      const notification = await h.trigger(outcome.providerReference, 'paid');
      assert.ok(notification !== null);
      const now = h.clock.now();
      assert.deepEqual(h.connector.verifyNotification(notification, now), { ok: true });
      const parsed = h.connector.parseNotification(notification.rawBody);
      assert.ok(parsed.ok);
      if (!parsed.ok) return;
      assert.equal(parsed.snapshot.status, 'paid');
      assert.equal(parsed.snapshot.attemptId, r.attemptId);
      assert.equal(parsed.snapshot.amountPaidMinor, r.amountMinor);
      assert.ok(parsed.snapshot.sequence >= 2, 'the change counter grew');
      assert.ok(parsed.snapshot.paidAt !== null);

      const scheme = h.notificationScheme ?? 'timestamped';
      if (scheme === 'token') {
        assert.equal(
          h.connector.capabilities.notificationTrust,
          'query',
          'a token does not protect the body: query the provider',
        );
      } else {
        // A changed signed byte breaks the signature (default: one digit, e.g. of an amount or an id).
        const tampered = h.tamper?.(notification) ?? {
          ...notification,
          rawBody: notification.rawBody.replace(/\d/, (d) => String((Number(d) + 1) % 10)),
        };
        assert.notEqual(tampered.rawBody, notification.rawBody);
        assert.deepEqual(h.connector.verifyNotification(tampered, now), { ok: false, reason: 'bad_signature' });
      }
      const forged = h.resign?.(notification, h.foreignSecret, now) ?? {
        ...notification,
        headers: { [h.signatureHeader]: h.sign(h.foreignSecret, notification.rawBody, now) },
      };
      assert.deepEqual(h.connector.verifyNotification(forged, now), { ok: false, reason: 'bad_signature' });
      if (scheme === 'timestamped') {
        const later = new Date(now.getTime() + 10 * 60_000);
        assert.deepEqual(h.connector.verifyNotification(notification, later), { ok: false, reason: 'stale_timestamp' });
      }
      const unsigned = h.unsign?.(notification) ?? { rawBody: notification.rawBody, headers: {} };
      assert.deepEqual(h.connector.verifyNotification(unsigned, now), { ok: false, reason: 'missing_signature' });
      assert.equal(h.connector.parseNotification('{"not":"a notification"}').ok, false);
      assert.equal(h.connector.parseNotification('not json').ok, false);
    });

    it('closes an open charge, idempotently; a paid charge is not cancelable', async () => {
      const open = await issue();
      const req = {
        attemptId: open.request.attemptId,
        providerReference: open.outcome.providerReference,
        reason: 'canceled' as const,
      };
      const first = await h.connector.cancelCharge(req, ctx());
      if (!h.connector.capabilities.supports.cancel) {
        assert.equal(first.kind, 'refused', 'a provider that cannot cancel says so definitely');
        return;
      }
      assert.equal(first.kind, 'closed');
      if (first.kind === 'closed') assert.equal(first.snapshot.status, 'canceled');
      const second = await h.connector.cancelCharge(req, ctx());
      assert.equal(second.kind, 'closed');

      const paid = await issue();
      await h.trigger(paid.outcome.providerReference, 'paid');
      const refused = await h.connector.cancelCharge(
        { attemptId: paid.request.attemptId, providerReference: paid.outcome.providerReference, reason: 'canceled' },
        ctx(),
      );
      assert.equal(refused.kind, 'not_cancelable');
      if (refused.kind === 'not_cancelable') assert.equal(refused.snapshot.status, 'paid');
    });

    it('reports a reversal of a paid charge', async () => {
      const { outcome } = await issue();
      await h.trigger(outcome.providerReference, 'paid');
      const n = await h.trigger(outcome.providerReference, 'reversed');
      if (h.connector.capabilities.notificationTrust === 'query') {
        // A notification (if the provider sends one) is only a trigger: the status query tells.
        const q = await h.connector.queryCharge({ attemptId: '', providerReference: outcome.providerReference }, ctx());
        assert.ok(q.kind === 'found' && q.snapshot.status === 'reversed', `status query: ${q.kind}`);
        return;
      }
      assert.ok(n !== null);
      const parsed = h.connector.parseNotification(n.rawBody);
      assert.ok(parsed.ok && parsed.snapshot.status === 'reversed');
    });

    it('refunds as its capabilities say, idempotently by refund id', async () => {
      const { request: r, outcome } = await issue();
      await h.trigger(outcome.providerReference, 'paid');
      const refund = {
        refundId: newId('refund', h.clock.now().getTime()),
        attemptId: r.attemptId,
        providerReference: outcome.providerReference,
        amountMinor: h.connector.capabilities.supports.partialRefund ? r.amountMinor / 2n : r.amountMinor,
        currency: r.currency,
        reason: null,
      };
      const first = await h.connector.refund(refund, ctx());
      if (!h.connector.capabilities.supports.refund) {
        assert.equal(first.kind, 'refused');
        return;
      }
      assert.ok(first.kind === 'succeeded' || first.kind === 'pending', JSON.stringify(first));
      // A re-sent refund is the same refund, in its current state (a pending one may have finished).
      const again = await h.connector.refund(refund, ctx());
      assert.ok(again.kind === 'succeeded' || again.kind === 'pending', JSON.stringify(again));
      assert.equal(again.providerRefundId, first.providerRefundId, 'a re-sent refund is the same refund');
    });

    it('reports settled charges with gross = fee + net (or, declaring no settlement, claims no report)', async () => {
      const { request: r, outcome } = await issue();
      await h.trigger(outcome.providerReference, 'paid');
      const from = h.clock.now();
      if (!h.connector.capabilities.supports.settlement) {
        // A provider without a settlement report API (e.g. Midtrans): no report is invented.
        const none = await h.connector.fetchSettlementReport({ from, to: new Date(from.getTime() + 1) }, ctx());
        assert.equal(none.kind, 'unknown', 'a connector without settlement reports answers no report');
        return;
      }
      await h.trigger(outcome.providerReference, 'settled');
      const report = await h.connector.fetchSettlementReport({ from, to: new Date(from.getTime() + 1) }, ctx());
      assert.equal(report.kind, 'report');
      if (report.kind !== 'report') return;
      const entry = report.entries.find((e) => e.attemptId === r.attemptId);
      assert.ok(entry !== undefined, 'the settled charge is in the report');
      assert.equal(entry.grossMinor, r.amountMinor);
      assert.equal(entry.feeMinor + entry.netMinor, entry.grossMinor);
      assert.ok(entry.feeMinor >= 0n);
      assert.equal(entry.providerReference, outcome.providerReference);
      // The owner metadata, when the provider echoes it, attributes the line (docs/money.md).
      if (entry.owner !== null) {
        assert.deepEqual(entry.owner, { merchantId: r.merchantId, environment: r.environment, paymentId: r.paymentId });
      }
    });

    it('never logs its secrets', () => {
      const logs = h.logs();
      assert.ok(logs.length > 0, 'the calls above were logged');
      for (const secret of h.secrets) assert.equal(logs.includes(secret), false, 'a secret reached the log');
    });

    it('teardown', async () => {
      await h.close();
    });
  });
}
