import { ChargeBook, type FaultSpec, type SimulateAction } from './charge-book.ts';
import { type NotificationFault, NotificationOutbox } from './notification-outbox.ts';
import { RefundBook, type RefundFault, renderRefundNotification } from './refund-book.ts';
import type { ProviderDialect, ProviderOptions, ProviderReply } from './sandbox-types.ts';
import { type SettlementReportFault, SettlementReports } from './settlement-reports.ts';

/** Every fault a provider can be given at once; the control API replaces the whole set. */
export interface Faults {
  create?: FaultSpec;
  query?: FaultSpec;
  close?: FaultSpec;
  refund?: RefundFault;
  notifications?: NotificationFault;
  settlementReport?: SettlementReportFault[];
}

/**
 * One sandbox provider (bank, e-wallet or counter). It behaves like a real payment provider, not
 * like a stub: charges keyed by the caller's idempotency key, its own clock and expiry, a per-charge
 * change counter, asynchronous signed notifications with retries, a settlement report, refunds, and
 * faults on demand. Each provider only adds its wire dialect (field names, status words, paths), see
 * bank-provider.ts, ewallet-provider.ts, counter-provider.ts.
 *
 * This is the "outside world" for Tributary: it never imports Tributary's modules, database or
 * connectors, and Tributary reaches it only over HTTP. State lives in memory; instructions are
 * derived from the idempotency key, so a re-sent create gets the same instructions even after a
 * restart of the provider.
 *
 * This class only composes the parts, each of which owns its state and its faults: charge-book.ts,
 * refund-book.ts, notification-outbox.ts and settlement-reports.ts.
 */
export class SandboxProvider {
  readonly dialect: ProviderDialect;
  readonly #options: ProviderOptions;
  readonly #charges: ChargeBook;
  readonly #refunds: RefundBook;
  readonly #outbox: NotificationOutbox;
  readonly #settlements: SettlementReports;
  faults: Faults = {};

  constructor(dialect: ProviderDialect, options: ProviderOptions) {
    this.dialect = dialect;
    this.#options = options;
    // Every part reads `this.faults` when it acts: the control API assigns a new set at any time.
    this.#outbox = new NotificationOutbox({
      dialect,
      options,
      fault: () => this.faults.notifications,
      // Refunds whose time has come finish now, so their notifications go out in this dispatch.
      beforeDispatch: () => this.#refunds.finishDue(),
    });
    this.#charges = new ChargeBook({
      dialect,
      clock: options.clock,
      callFault: (call) => this.faults[call],
      notify: (charge) =>
        this.#outbox.queue(charge.id, charge.sequence, (eventId, now) => dialect.renderNotification(eventId, charge, now)),
    });
    this.#refunds = new RefundBook({
      supportsRefund: dialect.supportsRefund,
      clock: options.clock,
      charges: this.#charges,
      fault: () => this.faults.refund,
      notify: (refund) =>
        this.#outbox.queue(refund.chargeId, 0, (eventId, now) => renderRefundNotification(eventId, refund, now)),
    });
    this.#settlements = new SettlementReports({
      dialect,
      options,
      charges: this.#charges,
      faults: () => this.faults.settlementReport ?? [],
    });
  }

  get apiKey(): string {
    return this.#options.apiKey;
  }

  get chargeCount(): number {
    return this.#charges.size;
  }

  get pendingNotifications(): number {
    return this.#outbox.size;
  }

  /** Notifications that reached Tributary with a 2xx (for tests and the control API). */
  get delivered(): number {
    return this.#outbox.delivered;
  }

  get dropped(): number {
    return this.#outbox.dropped;
  }

  // ── API operations ─────────────────────────────────────────────────────────────────────────

  create(idempotencyKey: string | undefined, body: unknown): ProviderReply {
    return this.#charges.create(idempotencyKey, body);
  }

  get(id: string): ProviderReply {
    return this.#charges.get(id);
  }

  /** Closes an open charge. Closing a closed one answers it again; a paid one cannot be closed. */
  close(id: string): ProviderReply {
    return this.#charges.close(id);
  }

  refund(idempotencyKey: string | undefined, body: unknown): ProviderReply {
    return this.#refunds.refund(idempotencyKey, body);
  }

  /** The sandbox's control for refunds: finish a pending refund now, as `outcome`. */
  completeRefund(externalId: string, outcome: 'SUCCEEDED' | 'FAILED'): boolean {
    return this.#refunds.complete(externalId, outcome);
  }

  /** Settled charges whose settlement time is in [from, to), with the report faults applied. */
  settlements(from: Date, to: Date): ProviderReply {
    return this.#settlements.report(from, to);
  }

  /** The sandbox's "make the payer do X" control (see ChargeBook.simulate). */
  simulate(id: string, action: SimulateAction, amountMinor: bigint | undefined): ProviderReply {
    return this.#charges.simulate(id, action, amountMinor);
  }

  // ── time and notifications ─────────────────────────────────────────────────────────────────

  /**
   * The provider's clock moves on: open charges expire, due refunds finish, due charges settle.
   * Returns how many charges and refunds changed.
   */
  tick(): number {
    const changed = this.#charges.expireDue() + this.#refunds.finishDue();
    this.#settlements.settleDue();
    return changed;
  }

  /** Sends the notifications that are due, oldest first. One run at a time. */
  dispatchDue(): Promise<number> {
    return this.#outbox.dispatchDue();
  }

  /** Releases held notifications (fault `hold`), in queue order or reversed. */
  release(order: 'queued' | 'reverse'): number {
    return this.#outbox.release(order);
  }

  reset(): void {
    this.faults = {};
    this.#outbox.clear();
  }
}
