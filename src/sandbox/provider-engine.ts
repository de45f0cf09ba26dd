import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import { type CurrencyCode, isCurrencyCode, minorUnitDigits } from '../lib/currencies.ts';
import { signatureHeader } from '../lib/hmac-signature.ts';
import type { Logger } from '../lib/logger.ts';

/**
 * The engine behind the three sandbox providers (bank, e-wallet, counter). It behaves like a real
 * payment provider, not like a stub: charges keyed by the caller's idempotency key, its own clock
 * and expiry, a per-charge change counter, asynchronous signed notifications with retries, a
 * settlement report, refunds, and faults on demand. Each provider only adds its wire dialect
 * (field names, status words, paths), see bank-provider.ts, ewallet-provider.ts, counter-provider.ts.
 *
 * This is the "outside world" for Tributary: it never imports Tributary's modules, database or
 * connectors, and Tributary reaches it only over HTTP. State lives in memory; instructions are
 * derived from the idempotency key, so a re-sent create gets the same instructions even after a
 * restart of the provider.
 */
export type SandboxChargeState = 'active' | 'partially_paid' | 'paid' | 'failed' | 'expired' | 'closed' | 'reversed';

export interface SandboxCharge {
  id: string;
  /** The caller's idempotency key (Tributary's attempt id). */
  externalId: string;
  fingerprint: string;
  instrument: string;
  amountMinor: bigint;
  currency: CurrencyCode;
  amountPaidMinor: bigint;
  amountRefundedMinor: bigint;
  state: SandboxChargeState;
  /** Grows by one with every change; sent in every rendering so receivers can order them. */
  sequence: number;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
  paidAt: Date | null;
  failureCode: string | null;
  settledAt: Date | null;
  holderName: string;
  description: string | null;
  metadata: Record<string, string>;
}

export interface CreateInput {
  externalId: string;
  instrument: string;
  amountMinor: bigint;
  currency: CurrencyCode;
  expiresAt: Date;
  holderName: string;
  description: string | null;
  metadata: Record<string, string>;
}

/** What a handler answers: a status and a JSON body, optionally held open (a simulated hang). */
export interface ProviderReply {
  status: number;
  body: unknown;
  /** Keep the response back this long (null: until the client gives up). */
  holdMs?: number | null;
  /** Keep the response back until this settles (bounded like holdMs). */
  holdUntil?: Promise<void>;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; code: string; message: string };

/** The wire dialect of one provider. */
export interface ProviderDialect {
  /** Tributary's connector name: notifications go to /provider/<connector>/callback. */
  connector: string;
  /** Path of the charge collection, e.g. `/bank/v1/virtual_accounts`. */
  chargesPath: string;
  /** Last path segment of the close operation (`close`, `void`, `cancel`). */
  closeVerb: string;
  refundsPath: string;
  settlementsPath: string;
  referencePrefix: string;
  signatureHeader: string;
  instruments: readonly { code: string; name: string }[];
  acceptsPartialPayment: boolean;
  acceptsOverpayment: boolean;
  supportsRefund: boolean;
  /** Magic amount (whole major units) this provider declines, so `auto` can be seen failing over. */
  declineAmount: bigint;
  /** Provider fee on a settled payment (integer arithmetic only). */
  feeMinor(grossMinor: bigint): bigint;
  parseCreate(body: unknown): Parsed<CreateInput>;
  renderCharge(charge: SandboxCharge): Record<string, unknown>;
  renderNotification(eventId: string, charge: SandboxCharge, at: Date): Record<string, unknown>;
}

export type FaultMode = 'error' | 'timeout' | 'latency' | 'decline';
export interface FaultSpec {
  mode: FaultMode;
  latencyMs?: number;
  /** Tests only: with `latency`, hold the answer until this settles instead of for latencyMs. */
  until?: Promise<void>;
  /** How many calls the fault affects; unlimited when absent. */
  remaining?: number;
}
export type NotificationFaultMode = 'drop' | 'duplicate' | 'hold' | 'delay';
export interface NotificationFault {
  mode: NotificationFaultMode;
  delayMs?: number;
  remaining?: number;
}
/**
 * What the settlement report can be made to get wrong, one discrepancy kind each (docs/sandbox.md;
 * reconciliation names them in docs/money.md). Report faults stay until reset, so the same report
 * comes back on every read (a reconciliation re-run sees the same thing).
 *
 * - `omit`: the charge's line is left out
 * - `duplicate`: the charge's line appears twice
 * - `amount`: the line's gross (and net) is one major unit higher
 * - `currency`: the line names another currency
 * - `unknown_reference`: an extra line for a charge that does not exist, with the charge's owner metadata
 * - `late`: the line is dated at the window's end (after the cut-off) yet reported in it
 */
export const SETTLEMENT_REPORT_FAULT_KINDS = ['omit', 'duplicate', 'amount', 'currency', 'unknown_reference', 'late'] as const;
export type SettlementReportFaultKind = (typeof SETTLEMENT_REPORT_FAULT_KINDS)[number];
export interface SettlementReportFault {
  kind: SettlementReportFaultKind;
  /** The provider's charge id the fault applies to. */
  chargeId: string;
}
/**
 * Refund faults. Without one a refund answers PENDING and succeeds at the provider's next look
 * (a re-send, `tick()`, or the next notification dispatch), then notifies.
 * - `pending`: stays PENDING for `delayMs` (default 1 h), then succeeds;
 * - `fail`: answers PENDING, then fails after `delayMs` (default 0) with REFUND_REJECTED;
 * - `decline`: refuses at once (400 DECLINED), nothing is created;
 * - `error`: 503, nothing is created;
 * - `timeout`: the refund is created (PENDING) but the answer never comes.
 */
export type RefundFaultMode = 'pending' | 'fail' | 'decline' | 'error' | 'timeout';
export interface RefundFault {
  mode: RefundFaultMode;
  delayMs?: number;
  remaining?: number;
}
export interface Faults {
  create?: FaultSpec;
  query?: FaultSpec;
  close?: FaultSpec;
  refund?: RefundFault;
  notifications?: NotificationFault;
  settlementReport?: SettlementReportFault[];
}

export type SandboxRefundState = 'PENDING' | 'SUCCEEDED' | 'FAILED';
export interface SandboxRefund {
  id: string;
  /** The caller's idempotency key (Tributary's refund id). */
  externalId: string;
  chargeId: string;
  amountMinor: bigint;
  fingerprint: string;
  state: SandboxRefundState;
  /** When the provider finishes it, and how. */
  completeAt: Date;
  outcome: 'SUCCEEDED' | 'FAILED';
  failureCode: string | null;
  createdAt: Date;
  updatedAt: Date;
}

const DEFAULT_REFUND_PENDING_MS = 3_600_000;

/**
 * Magic amounts (whole major units, any currency where the amount is in range): a create with one
 * of these gets a scripted behaviour. Each provider also declines its own amount (its dialect's
 * `declineAmount`). docs/sandbox.md lists them.
 */
export const MAGIC_AMOUNTS = {
  timeoutOnce: 77_777n,
  autoPay: 88_888n,
  autoFail: 99_999n,
} as const;

export type SimulateAction = 'pay' | 'fail' | 'expire' | 'reverse' | 'settle';

interface OutboxItem {
  eventId: string;
  chargeId: string;
  sequence: number;
  body: string;
  deliverAt: Date;
  attempts: number;
  held: boolean;
}

export interface ProviderOptions {
  clock: Clock;
  apiKey: string;
  webhookSecret: string;
  /** Tributary's base address (notifications go to <base>/provider/<connector>/callback). */
  callbackBaseUrl: () => string;
  log: Logger;
  /** Send notifications as soon as they are queued (off in tests, which call dispatchDue()). */
  autoDispatch: boolean;
  fetchImpl?: typeof fetch;
  /**
   * The settlement schedule: a paid charge settles this long after it was paid, by the provider's
   * clock (null: only when asked, with the `settle` control). Default SETTLEMENT_DELAY_MS.
   */
  settlementDelayMs?: number | null;
}

/** Default settlement schedule of the sandbox providers: T+1 day. */
export const SETTLEMENT_DELAY_MS = 24 * 3_600_000;

const MAX_NOTIFICATION_ATTEMPTS = 15;
const MAX_NOTIFICATION_BACKOFF_MS = 5 * 60_000;
const NOTIFICATION_TIMEOUT_MS = 5_000;
const DISPATCH_BATCH = 100;
/** Bounds the in-memory state of a long-running sandbox. */
const MAX_CHARGES = 100_000;

const OPEN_STATES: ReadonlySet<SandboxChargeState> = new Set(['active', 'partially_paid']);

export class SandboxProvider {
  readonly dialect: ProviderDialect;
  readonly #options: ProviderOptions;
  readonly #charges = new Map<string, SandboxCharge>();
  readonly #byExternalId = new Map<string, string>();
  readonly #refunds = new Map<string, SandboxRefund>();
  readonly #timedOutOnce = new Set<string>();
  #outbox: OutboxItem[] = [];
  #dispatching: Promise<number> | undefined;
  faults: Faults = {};
  /** Notifications that reached Tributary with a 2xx (for tests and the control API). */
  delivered = 0;
  dropped = 0;

  constructor(dialect: ProviderDialect, options: ProviderOptions) {
    this.dialect = dialect;
    this.#options = options;
  }

  get apiKey(): string {
    return this.#options.apiKey;
  }

  get chargeCount(): number {
    return this.#charges.size;
  }

  get pendingNotifications(): number {
    return this.#outbox.length;
  }

  #now(): Date {
    return this.#options.clock.now();
  }

  // ── API operations ─────────────────────────────────────────────────────────────────────────

  create(idempotencyKey: string | undefined, body: unknown): ProviderReply {
    if (idempotencyKey === undefined || idempotencyKey === '') {
      return error(400, 'IDEMPOTENCY_KEY_REQUIRED', 'send an Idempotency-Key header');
    }
    const fault = this.#takeFault('create');
    if (fault?.mode === 'error') return error(503, 'TEMPORARILY_UNAVAILABLE', 'simulated provider outage');
    if (fault?.mode === 'decline') return error(400, 'DECLINED', 'simulated decline');
    const parsed = this.dialect.parseCreate(body);
    if (!parsed.ok) return error(400, parsed.code, parsed.message);
    const input = parsed.value;
    if (input.externalId !== idempotencyKey) return error(400, 'KEY_MISMATCH', 'the external id must equal the Idempotency-Key');
    if (!this.dialect.instruments.some((i) => i.code === input.instrument)) {
      return error(400, 'UNSUPPORTED_INSTRUMENT', `unknown instrument ${input.instrument}`);
    }
    const major = majorIfWhole(input.amountMinor, input.currency);
    if (major === this.dialect.declineAmount) return error(400, 'DECLINED', 'declined (magic amount)');

    const fingerprint = fingerprintOf(input);
    const existingId = this.#byExternalId.get(idempotencyKey);
    let charge = existingId === undefined ? undefined : this.#charges.get(existingId);
    let status = 200;
    if (charge !== undefined) {
      // A re-sent create: the same charge again, exactly like a real idempotent API.
      if (charge.fingerprint !== fingerprint) {
        return error(422, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request');
      }
      this.#refresh(charge);
    } else {
      if (this.#charges.size >= MAX_CHARGES) return error(503, 'CAPACITY', 'sandbox provider is full; restart it');
      const now = this.#now();
      charge = {
        id: `${this.dialect.referencePrefix}${createHash('sha256').update(input.externalId).digest('hex').slice(0, 20)}`,
        externalId: input.externalId,
        fingerprint,
        instrument: input.instrument,
        amountMinor: input.amountMinor,
        currency: input.currency,
        amountPaidMinor: 0n,
        amountRefundedMinor: 0n,
        state: 'active',
        sequence: 1,
        createdAt: now,
        updatedAt: now,
        expiresAt: input.expiresAt,
        paidAt: null,
        failureCode: null,
        settledAt: null,
        holderName: input.holderName,
        description: input.description,
        metadata: input.metadata,
      };
      this.#charges.set(charge.id, charge);
      this.#byExternalId.set(input.externalId, charge.id);
      status = 201;
      if (major === MAGIC_AMOUNTS.autoPay) this.#pay(charge, charge.amountMinor);
      if (major === MAGIC_AMOUNTS.autoFail) this.#transition(charge, 'failed', { failureCode: 'DECLINED_BY_PAYER' });
    }
    const reply: ProviderReply = { status, body: this.dialect.renderCharge(charge) };
    // The charge exists before the hang: like a real provider that did the work but whose answer
    // never reached the caller. A re-send with the same key then gets the charge at once.
    if (major === MAGIC_AMOUNTS.timeoutOnce && !this.#timedOutOnce.has(idempotencyKey)) {
      this.#timedOutOnce.add(idempotencyKey);
      return { ...reply, holdMs: null };
    }
    return withFault(reply, fault);
  }

  get(id: string): ProviderReply {
    const fault = this.#takeFault('query');
    if (fault?.mode === 'error') return error(503, 'TEMPORARILY_UNAVAILABLE', 'simulated provider outage');
    const charge = this.#charges.get(id);
    if (charge === undefined) return error(404, 'NOT_FOUND', `no charge ${id}`);
    this.#refresh(charge);
    return withFault({ status: 200, body: this.dialect.renderCharge(charge) }, fault);
  }

  /** Closes an open charge. Closing a closed one answers it again; a paid one cannot be closed. */
  close(id: string): ProviderReply {
    const fault = this.#takeFault('close');
    if (fault?.mode === 'error') return error(503, 'TEMPORARILY_UNAVAILABLE', 'simulated provider outage');
    const charge = this.#charges.get(id);
    if (charge === undefined) return error(404, 'NOT_FOUND', `no charge ${id}`);
    this.#refresh(charge);
    if (OPEN_STATES.has(charge.state)) this.#transition(charge, 'closed', {});
    if (charge.state === 'closed' || charge.state === 'expired') {
      return withFault({ status: 200, body: this.dialect.renderCharge(charge) }, fault);
    }
    return {
      status: 409,
      body: { error_code: 'NOT_CLOSABLE', message: `charge is ${charge.state}`, charge: this.dialect.renderCharge(charge) },
    };
  }

  refund(idempotencyKey: string | undefined, body: unknown): ProviderReply {
    if (!this.dialect.supportsRefund) return error(422, 'REFUND_NOT_SUPPORTED', 'this channel does not support refunds');
    if (idempotencyKey === undefined || idempotencyKey === '') {
      return error(400, 'IDEMPOTENCY_KEY_REQUIRED', 'send an Idempotency-Key header');
    }
    const b = (body ?? {}) as Record<string, unknown>;
    const amount = parseMinor(b['amount_minor']);
    if (typeof b['charge_id'] !== 'string' || amount === undefined || amount <= 0n) {
      return error(400, 'INVALID_REQUEST', 'charge_id and a positive amount_minor are required');
    }
    const fingerprint = `${b['charge_id']}:${amount}`;
    const existing = this.#refunds.get(idempotencyKey);
    if (existing !== undefined) {
      // A re-sent refund: the same refund again, in its current state (how Tributary asks).
      if (existing.fingerprint !== fingerprint) return error(422, 'IDEMPOTENCY_KEY_REUSED', 'different refund for this key');
      this.#refreshRefund(existing);
      return { status: 200, body: renderRefund(existing) };
    }
    const fault = consume(this.faults.refund);
    if (fault?.mode === 'error') return error(503, 'TEMPORARILY_UNAVAILABLE', 'simulated provider outage');
    if (fault?.mode === 'decline') return error(400, 'DECLINED', 'simulated refund decline');
    const charge = this.#charges.get(b['charge_id']);
    if (charge === undefined) return error(404, 'NOT_FOUND', 'no such charge');
    if (charge.state !== 'paid') return error(409, 'NOT_REFUNDABLE', `charge is ${charge.state}`);
    if (charge.amountRefundedMinor + amount > charge.amountPaidMinor) {
      return error(422, 'AMOUNT_EXCEEDS_PAID', 'refunds may not exceed the paid amount');
    }
    charge.amountRefundedMinor += amount;
    const now = this.#now();
    const delayMs =
      fault?.mode === 'pending'
        ? (fault.delayMs ?? DEFAULT_REFUND_PENDING_MS)
        : fault?.mode === 'fail'
          ? (fault.delayMs ?? 0)
          : 0;
    const refund: SandboxRefund = {
      id: `rfd_${randomBytes(8).toString('hex')}`,
      externalId: idempotencyKey,
      chargeId: charge.id,
      amountMinor: amount,
      fingerprint,
      state: 'PENDING',
      completeAt: new Date(now.getTime() + delayMs),
      outcome: fault?.mode === 'fail' ? 'FAILED' : 'SUCCEEDED',
      failureCode: null,
      createdAt: now,
      updatedAt: now,
    };
    this.#refunds.set(idempotencyKey, refund);
    const reply: ProviderReply = { status: 201, body: renderRefund(refund) };
    // Like a create that hangs: the refund exists, the caller never hears about it.
    return fault?.mode === 'timeout' ? { ...reply, holdMs: null } : reply;
  }

  /** Finishes a pending refund whose time has come and notifies. True when it finished now. */
  #refreshRefund(refund: SandboxRefund): boolean {
    if (refund.state !== 'PENDING' || this.#now() < refund.completeAt) return false;
    refund.state = refund.outcome;
    refund.updatedAt = this.#now();
    if (refund.outcome === 'FAILED') {
      refund.failureCode = 'REFUND_REJECTED';
      const charge = this.#charges.get(refund.chargeId);
      if (charge !== undefined) charge.amountRefundedMinor -= refund.amountMinor;
    }
    this.#enqueueRefund(refund);
    return true;
  }

  /** The sandbox's control for refunds: finish a pending refund now, as `outcome`. */
  completeRefund(externalId: string, outcome: 'SUCCEEDED' | 'FAILED'): boolean {
    const refund = this.#refunds.get(externalId);
    if (refund === undefined || refund.state !== 'PENDING') return false;
    refund.outcome = outcome;
    refund.completeAt = this.#now();
    return this.#refreshRefund(refund);
  }

  /** Settled charges whose settlement time is in [from, to), with the report faults applied. */
  settlements(from: Date, to: Date): ProviderReply {
    this.#settleDue();
    const faults = this.faults.settlementReport ?? [];
    const faultsOf = (c: SandboxCharge) => new Set(faults.filter((f) => f.chargeId === c.id).map((f) => f.kind));
    const entries: Record<string, unknown>[] = [];
    for (const c of this.#charges.values()) {
      if (c.settledAt === null || c.settledAt < from || c.settledAt >= to) continue;
      const kinds = faultsOf(c);
      if (kinds.has('omit')) continue;
      const line = this.#reportLine(c);
      if (kinds.has('amount')) {
        const unit = 10n ** BigInt(minorUnitDigits(c.currency));
        line['gross_minor'] = (c.amountPaidMinor + unit).toString();
        line['net_minor'] = (c.amountPaidMinor + unit - this.dialect.feeMinor(c.amountPaidMinor)).toString();
      }
      if (kinds.has('currency')) line['currency'] = c.currency === 'USD' ? 'IDR' : 'USD';
      if (kinds.has('late')) line['settled_at'] = to.toISOString();
      entries.push(line);
      if (kinds.has('duplicate')) entries.push({ ...line });
      if (kinds.has('unknown_reference')) {
        const ghost = createHash('sha256').update(`ghost:${c.id}`).digest('hex').slice(0, 20);
        entries.push({
          ...line,
          charge_id: `${this.dialect.referencePrefix}${ghost}`,
          external_id: `att_GHOST${ghost.toUpperCase()}`,
        });
      }
    }
    return { status: 200, body: { from: from.toISOString(), to: to.toISOString(), entries } };
  }

  #reportLine(c: SandboxCharge): Record<string, unknown> {
    const fee = this.dialect.feeMinor(c.amountPaidMinor);
    return {
      charge_id: c.id,
      external_id: c.externalId,
      currency: c.currency,
      gross_minor: c.amountPaidMinor.toString(),
      fee_minor: fee.toString(),
      net_minor: (c.amountPaidMinor - fee).toString(),
      settled_at: (c.settledAt as Date).toISOString(),
      // The caller's metadata, echoed as on notifications: it says whose money the line is.
      metadata: c.metadata,
    };
  }

  /** The schedule: paid charges whose settlement time has come settle at that time. */
  #settleDue(): number {
    const delayMs = this.#options.settlementDelayMs === undefined ? SETTLEMENT_DELAY_MS : this.#options.settlementDelayMs;
    if (delayMs === null) return 0;
    const now = this.#now();
    let settled = 0;
    for (const c of this.#charges.values()) {
      if (c.state !== 'paid' || c.settledAt !== null || c.paidAt === null) continue;
      const due = new Date(c.paidAt.getTime() + delayMs);
      if (due <= now) {
        c.settledAt = due;
        settled += 1;
      }
    }
    return settled;
  }

  /**
   * The sandbox's "make the payer do X" control, as real sandboxes offer (a simulate-payment
   * call). Paying an expired or closed charge is allowed on purpose: it is the late payment that
   * happens in real life (an outlet's offline batch, a bank's delayed credit).
   */
  simulate(id: string, action: SimulateAction, amountMinor: bigint | undefined): ProviderReply {
    const charge = this.#charges.get(id);
    if (charge === undefined) return error(404, 'NOT_FOUND', `no charge ${id}`);
    this.#refresh(charge);
    switch (action) {
      case 'pay': {
        if (!['active', 'partially_paid', 'expired', 'closed'].includes(charge.state)) {
          return error(409, 'INVALID_STATE', `cannot pay a ${charge.state} charge`);
        }
        const late = charge.state === 'expired' || charge.state === 'closed';
        const amount = amountMinor ?? charge.amountMinor - charge.amountPaidMinor;
        if (amount <= 0n) return error(400, 'INVALID_AMOUNT', 'amount must be positive');
        const total = charge.amountPaidMinor + amount;
        if (total < charge.amountMinor && (!this.dialect.acceptsPartialPayment || late)) {
          return error(
            422,
            'AMOUNT_MISMATCH',
            late ? 'a late payment must cover the amount' : 'this channel takes the exact amount only',
          );
        }
        if (total > charge.amountMinor && !this.dialect.acceptsOverpayment) {
          return error(422, 'AMOUNT_MISMATCH', 'this channel takes the exact amount only');
        }
        this.#pay(charge, amount);
        break;
      }
      case 'fail':
        if (!OPEN_STATES.has(charge.state)) return error(409, 'INVALID_STATE', `cannot fail a ${charge.state} charge`);
        this.#transition(charge, 'failed', { failureCode: 'SIMULATED_FAILURE' });
        break;
      case 'expire':
        if (!OPEN_STATES.has(charge.state)) return error(409, 'INVALID_STATE', `cannot expire a ${charge.state} charge`);
        this.#transition(charge, 'expired', {});
        break;
      case 'reverse':
        if (charge.state !== 'paid') return error(409, 'INVALID_STATE', `cannot reverse a ${charge.state} charge`);
        this.#transition(charge, 'reversed', {});
        break;
      case 'settle':
        if (charge.state !== 'paid') return error(409, 'INVALID_STATE', `cannot settle a ${charge.state} charge`);
        if (charge.settledAt === null) charge.settledAt = this.#now();
        break;
    }
    return { status: 200, body: this.dialect.renderCharge(charge) };
  }

  // ── time and notifications ─────────────────────────────────────────────────────────────────

  /** Expires open charges whose time has come (the provider's own expiry). Returns how many. */
  tick(): number {
    let changed = 0;
    for (const charge of this.#charges.values()) {
      if (this.#refresh(charge)) changed += 1;
    }
    for (const refund of this.#refunds.values()) {
      if (this.#refreshRefund(refund)) changed += 1;
    }
    this.#settleDue();
    return changed;
  }

  /** Sends the notifications that are due, oldest first. One run at a time. */
  async dispatchDue(): Promise<number> {
    if (this.#dispatching !== undefined) return this.#dispatching;
    // Refunds whose time has come finish now, so their notifications go out in this dispatch.
    for (const refund of this.#refunds.values()) this.#refreshRefund(refund);
    this.#dispatching = this.#dispatch().finally(() => {
      this.#dispatching = undefined;
    });
    return this.#dispatching;
  }

  /** Releases held notifications (fault `hold`), in queue order or reversed. */
  release(order: 'queued' | 'reverse'): number {
    const held = this.#outbox.filter((i) => i.held);
    const now = this.#now();
    held.forEach((item, index) => {
      item.held = false;
      // The order is made by due times (all already due), so the next dispatch sends them in it.
      item.deliverAt = new Date(now.getTime() - (order === 'reverse' ? index : held.length - index));
    });
    this.#outbox.sort((a, b) => a.deliverAt.getTime() - b.deliverAt.getTime());
    return held.length;
  }

  reset(): void {
    this.faults = {};
    this.#outbox = [];
  }

  async #dispatch(): Promise<number> {
    let sent = 0;
    const now = this.#now();
    const due = this.#outbox.filter((i) => !i.held && i.deliverAt <= now).slice(0, DISPATCH_BATCH);
    for (const item of due) {
      const ok = await this.#send(item);
      if (ok) {
        this.#outbox = this.#outbox.filter((i) => i !== item);
        this.delivered += 1;
        sent += 1;
      } else {
        item.attempts += 1;
        if (item.attempts >= MAX_NOTIFICATION_ATTEMPTS) {
          this.#options.log.warn({ event_id: item.eventId, connector: this.dialect.connector }, 'sandbox notification given up');
          this.#outbox = this.#outbox.filter((i) => i !== item);
        } else {
          const backoffMs = Math.min(1_000 * 2 ** item.attempts, MAX_NOTIFICATION_BACKOFF_MS);
          item.deliverAt = new Date(this.#now().getTime() + backoffMs);
        }
      }
    }
    return sent;
  }

  async #send(item: OutboxItem): Promise<boolean> {
    const url = `${this.#options.callbackBaseUrl()}/provider/${this.dialect.connector}/callback`;
    try {
      const res = await (this.#options.fetchImpl ?? fetch)(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          // Signed when sent, not when queued: a delayed notification still carries a fresh time.
          [this.dialect.signatureHeader]: signatureHeader(this.#options.webhookSecret, item.body, this.#now()),
        },
        body: item.body,
        redirect: 'error',
        signal: AbortSignal.timeout(NOTIFICATION_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      return res.status >= 200 && res.status < 300;
    } catch (err) {
      this.#options.log.debug({ err, event_id: item.eventId }, 'sandbox notification not delivered');
      return false;
    }
  }

  // ── internals ──────────────────────────────────────────────────────────────────────────────

  #pay(charge: SandboxCharge, amountMinor: bigint): void {
    const total = charge.amountPaidMinor + amountMinor;
    const now = this.#now();
    this.#transition(charge, total >= charge.amountMinor ? 'paid' : 'partially_paid', {
      amountPaidMinor: total,
      paidAt: total >= charge.amountMinor ? now : null,
    });
  }

  /** Applies the provider's own expiry. True when it expired the charge now. */
  #refresh(charge: SandboxCharge): boolean {
    if (OPEN_STATES.has(charge.state) && this.#now() >= charge.expiresAt) {
      this.#transition(charge, 'expired', {});
      return true;
    }
    return false;
  }

  #transition(
    charge: SandboxCharge,
    state: SandboxChargeState,
    change: { failureCode?: string; amountPaidMinor?: bigint; paidAt?: Date | null },
  ): void {
    charge.state = state;
    charge.sequence += 1;
    charge.updatedAt = this.#now();
    if (change.failureCode !== undefined) charge.failureCode = change.failureCode;
    if (change.amountPaidMinor !== undefined) charge.amountPaidMinor = change.amountPaidMinor;
    if (change.paidAt !== undefined) charge.paidAt = change.paidAt;
    this.#enqueue(charge);
  }

  #enqueue(charge: SandboxCharge): void {
    this.#queue(charge.id, charge.sequence, (eventId, now) => this.dialect.renderNotification(eventId, charge, now));
  }

  /** A refund's notification: a change of the refund, in the providers' common refund shape. */
  #enqueueRefund(refund: SandboxRefund): void {
    this.#queue(refund.chargeId, 0, (eventId, now) => ({
      id: eventId,
      event: 'refund.status_changed',
      created: now.toISOString(),
      refund: renderRefund(refund),
    }));
  }

  #queue(chargeId: string, sequence: number, render: (eventId: string, now: Date) => Record<string, unknown>): void {
    const now = this.#now();
    const fault = this.#takeNotificationFault();
    if (fault?.mode === 'drop') {
      this.dropped += 1;
      return;
    }
    const eventId = `${this.dialect.referencePrefix}evt_${randomBytes(8).toString('hex')}`;
    const body = JSON.stringify(render(eventId, now));
    const item: OutboxItem = {
      eventId,
      chargeId,
      sequence,
      body,
      deliverAt: fault?.mode === 'delay' ? new Date(now.getTime() + (fault.delayMs ?? 0)) : now,
      attempts: 0,
      held: fault?.mode === 'hold',
    };
    this.#outbox.push(item);
    // A duplicate is the same event (same id, same body) delivered twice.
    if (fault?.mode === 'duplicate') this.#outbox.push({ ...item });
    if (this.#options.autoDispatch && !item.held) setImmediate(() => void this.dispatchDue());
  }

  #takeFault(kind: 'create' | 'query' | 'close'): FaultSpec | undefined {
    return consume(this.faults[kind]);
  }

  #takeNotificationFault(): NotificationFault | undefined {
    return consume(this.faults.notifications);
  }
}

/** A fault applies while it has calls left (or always, without a count); each use spends one. */
function consume<F extends { remaining?: number }>(fault: F | undefined): F | undefined {
  if (fault === undefined) return undefined;
  if (fault.remaining !== undefined) {
    if (fault.remaining <= 0) return undefined;
    fault.remaining -= 1;
  }
  return fault;
}

function withFault(reply: ProviderReply, fault: FaultSpec | undefined): ProviderReply {
  if (fault?.mode === 'timeout') return { ...reply, holdMs: null };
  if (fault?.mode === 'latency' && fault.until !== undefined) return { ...reply, holdMs: null, holdUntil: fault.until };
  if (fault?.mode === 'latency') return { ...reply, holdMs: fault.latencyMs ?? 1_000 };
  return reply;
}

function error(status: number, code: string, message: string): ProviderReply {
  return { status, body: { error_code: code, message } };
}

function renderRefund(r: SandboxRefund) {
  return {
    id: r.id,
    external_id: r.externalId,
    charge_id: r.chargeId,
    amount_minor: r.amountMinor.toString(),
    status: r.state,
    failure_code: r.failureCode,
    created: r.createdAt.toISOString(),
    updated: r.updatedAt.toISOString(),
  };
}

function fingerprintOf(input: CreateInput): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        input.instrument,
        input.amountMinor.toString(),
        input.currency,
        input.expiresAt.toISOString(),
        input.metadata,
      ]),
    )
    .digest('hex');
}

/** The amount in whole major units, or undefined when it has a fractional part. */
function majorIfWhole(amountMinor: bigint, currency: CurrencyCode): bigint | undefined {
  const scale = 10n ** BigInt(minorUnitDigits(currency));
  return amountMinor % scale === 0n ? amountMinor / scale : undefined;
}

/** A non-negative integer amount sent as a decimal string of minor units. */
export function parseMinor(value: unknown): bigint | undefined {
  if (typeof value !== 'string' || !/^\d{1,18}$/.test(value)) return undefined;
  return BigInt(value);
}

/**
 * The status words of a provider that takes the exact amount only: it has no word for a partial
 * payment because the engine never produces one for it (acceptsPartialPayment: false).
 */
export function exactAmountStatusWords(
  words: Readonly<Record<Exclude<SandboxChargeState, 'partially_paid'>, string>>,
): (state: SandboxChargeState) => string {
  return (state) => {
    if (state === 'partially_paid') throw new Error('unreachable: this provider never takes a partial payment');
    return words[state];
  };
}

export function parseCurrency(value: unknown): CurrencyCode | undefined {
  return typeof value === 'string' && isCurrencyCode(value) ? value : undefined;
}

export function parseDate(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function parseMetadata(value: unknown): Record<string, string> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return {};
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value)) if (typeof v === 'string') out[k] = v;
  return out;
}
