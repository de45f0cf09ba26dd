import { createHash } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import { type CurrencyCode, minorUnitDigits } from '../lib/currencies.ts';
import { spendFault } from './fault-budget.ts';
import {
  type CreateInput,
  errorReply,
  type ProviderDialect,
  type ProviderReply,
  type SandboxCharge,
  type SandboxChargeState,
} from './sandbox-types.ts';

/** Faults of the charge calls: the call fails, is declined, hangs, or answers late. */
export type FaultMode = 'error' | 'timeout' | 'latency' | 'decline';
export interface FaultSpec {
  mode: FaultMode;
  latencyMs?: number;
  /** Tests only: with `latency`, hold the answer until this settles instead of for latencyMs. */
  until?: Promise<void>;
  /** How many calls the fault affects; unlimited when absent. */
  remaining?: number;
}
export type ChargeCall = 'create' | 'query' | 'close';

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

/** Bounds the in-memory state of a long-running sandbox. */
const MAX_CHARGES = 100_000;

const OPEN_STATES: ReadonlySet<SandboxChargeState> = new Set(['active', 'partially_paid']);

export interface ChargeBookDeps {
  dialect: ProviderDialect;
  clock: Clock;
  /** The fault set for a call now (read at every call: the control API replaces the faults). */
  callFault: (call: ChargeCall) => FaultSpec | undefined;
  /** Told of every change of a charge, in the order the changes happen. */
  notify: (charge: SandboxCharge) => void;
}

/** A call that may go on with what it found, or the answer that ends it. */
type Checked<T> = ({ ok: true } & T) | { ok: false; reply: ProviderReply };

/**
 * The provider's charges: created under the caller's idempotency key, expired by the provider's own
 * clock, moved by the simulate control. Every change bumps the charge's sequence and is notified.
 */
export class ChargeBook {
  readonly #deps: ChargeBookDeps;
  readonly #charges = new Map<string, SandboxCharge>();
  readonly #byExternalId = new Map<string, string>();
  readonly #timedOutOnce = new Set<string>();

  constructor(deps: ChargeBookDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#charges.size;
  }

  find(id: string): SandboxCharge | undefined {
    return this.#charges.get(id);
  }

  /** Every charge, oldest first. */
  all(): Iterable<SandboxCharge> {
    return this.#charges.values();
  }

  create(idempotencyKey: string | undefined, body: unknown): ProviderReply {
    if (idempotencyKey === undefined || idempotencyKey === '') {
      return errorReply(400, 'IDEMPOTENCY_KEY_REQUIRED', 'send an Idempotency-Key header');
    }
    const fault = this.#takeFault('create');
    if (fault?.mode === 'error') return errorReply(503, 'TEMPORARILY_UNAVAILABLE', 'simulated provider outage');
    if (fault?.mode === 'decline') return errorReply(400, 'DECLINED', 'simulated decline');
    const checked = this.#checkCreate(idempotencyKey, body);
    if (!checked.ok) return checked.reply;
    const { input, major } = checked;

    const fingerprint = fingerprintOf(input);
    let charge = this.#findByKey(idempotencyKey);
    let status = 200;
    if (charge !== undefined) {
      // A re-sent create: the same charge again, exactly like a real idempotent API.
      if (charge.fingerprint !== fingerprint) {
        return errorReply(422, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used with a different request');
      }
      this.#expireIfDue(charge);
    } else {
      if (this.#charges.size >= MAX_CHARGES) return errorReply(503, 'CAPACITY', 'sandbox provider is full; restart it');
      charge = this.#open(input, fingerprint);
      status = 201;
      this.#playMagicAmount(charge, major);
    }
    const reply: ProviderReply = { status, body: this.#deps.dialect.renderCharge(charge) };
    // The charge exists before the hang: like a real provider that did the work but whose answer
    // never reached the caller. A re-send with the same key then gets the charge at once.
    if (major === MAGIC_AMOUNTS.timeoutOnce && !this.#timedOutOnce.has(idempotencyKey)) {
      this.#timedOutOnce.add(idempotencyKey);
      return { ...reply, holdMs: null };
    }
    return withFault(reply, fault);
  }

  get(id: string): ProviderReply {
    const found = this.#findForCall('query', id);
    if (!found.ok) return found.reply;
    return withFault({ status: 200, body: this.#deps.dialect.renderCharge(found.charge) }, found.fault);
  }

  /** Closes an open charge. Closing a closed one answers it again; a paid one cannot be closed. */
  close(id: string): ProviderReply {
    const found = this.#findForCall('close', id);
    if (!found.ok) return found.reply;
    const { charge, fault } = found;
    if (OPEN_STATES.has(charge.state)) this.#transition(charge, 'closed', {});
    if (charge.state === 'closed' || charge.state === 'expired') {
      return withFault({ status: 200, body: this.#deps.dialect.renderCharge(charge) }, fault);
    }
    return {
      status: 409,
      body: { error_code: 'NOT_CLOSABLE', message: `charge is ${charge.state}`, charge: this.#deps.dialect.renderCharge(charge) },
    };
  }

  /**
   * The sandbox's "make the payer do X" control, as real sandboxes offer (a simulate-payment
   * call). Paying an expired or closed charge is allowed on purpose: it is the late payment that
   * happens in real life (an outlet's offline batch, a bank's delayed credit).
   */
  simulate(id: string, action: SimulateAction, amountMinor: bigint | undefined): ProviderReply {
    const charge = this.#charges.get(id);
    if (charge === undefined) return errorReply(404, 'NOT_FOUND', `no charge ${id}`);
    this.#expireIfDue(charge);
    const refusal = this.#simulateOn(charge, action, amountMinor);
    return refusal ?? { status: 200, body: this.#deps.dialect.renderCharge(charge) };
  }

  /** The provider's own expiry over every charge. Returns how many it expired now. */
  expireDue(): number {
    let expired = 0;
    for (const charge of this.#charges.values()) {
      if (this.#expireIfDue(charge)) expired += 1;
    }
    return expired;
  }

  #checkCreate(idempotencyKey: string, body: unknown): Checked<{ input: CreateInput; major: bigint | undefined }> {
    const parsed = this.#deps.dialect.parseCreate(body);
    if (!parsed.ok) return refused(400, parsed.code, parsed.message);
    const input = parsed.value;
    if (input.externalId !== idempotencyKey)
      return refused(400, 'KEY_MISMATCH', 'the external id must equal the Idempotency-Key');
    if (!this.#deps.dialect.instruments.some((i) => i.code === input.instrument)) {
      return refused(400, 'UNSUPPORTED_INSTRUMENT', `unknown instrument ${input.instrument}`);
    }
    const major = majorIfWhole(input.amountMinor, input.currency);
    if (major === this.#deps.dialect.declineAmount) return refused(400, 'DECLINED', 'declined (magic amount)');
    return { ok: true, input, major };
  }

  /** What a call on one charge starts with: spend the call's fault, find the charge, apply its expiry. */
  #findForCall(call: 'query' | 'close', id: string): Checked<{ charge: SandboxCharge; fault: FaultSpec | undefined }> {
    const fault = this.#takeFault(call);
    if (fault?.mode === 'error') return refused(503, 'TEMPORARILY_UNAVAILABLE', 'simulated provider outage');
    const charge = this.#charges.get(id);
    if (charge === undefined) return refused(404, 'NOT_FOUND', `no charge ${id}`);
    this.#expireIfDue(charge);
    return { ok: true, charge, fault };
  }

  #findByKey(idempotencyKey: string): SandboxCharge | undefined {
    const id = this.#byExternalId.get(idempotencyKey);
    return id === undefined ? undefined : this.#charges.get(id);
  }

  #open(input: CreateInput, fingerprint: string): SandboxCharge {
    const now = this.#deps.clock.now();
    const charge: SandboxCharge = {
      id: `${this.#deps.dialect.referencePrefix}${createHash('sha256').update(input.externalId).digest('hex').slice(0, 20)}`,
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
    return charge;
  }

  #playMagicAmount(charge: SandboxCharge, major: bigint | undefined): void {
    if (major === MAGIC_AMOUNTS.autoPay) this.#pay(charge, charge.amountMinor);
    if (major === MAGIC_AMOUNTS.autoFail) this.#transition(charge, 'failed', { failureCode: 'DECLINED_BY_PAYER' });
  }

  /** Applies one simulate action; answers only when the charge's state refuses it. */
  #simulateOn(charge: SandboxCharge, action: SimulateAction, amountMinor: bigint | undefined): ProviderReply | undefined {
    switch (action) {
      case 'pay':
        return this.#simulatePay(charge, amountMinor);
      case 'fail':
        if (!OPEN_STATES.has(charge.state)) return errorReply(409, 'INVALID_STATE', `cannot fail a ${charge.state} charge`);
        this.#transition(charge, 'failed', { failureCode: 'SIMULATED_FAILURE' });
        return undefined;
      case 'expire':
        if (!OPEN_STATES.has(charge.state)) return errorReply(409, 'INVALID_STATE', `cannot expire a ${charge.state} charge`);
        this.#transition(charge, 'expired', {});
        return undefined;
      case 'reverse':
        if (charge.state !== 'paid') return errorReply(409, 'INVALID_STATE', `cannot reverse a ${charge.state} charge`);
        this.#transition(charge, 'reversed', {});
        return undefined;
      case 'settle':
        if (charge.state !== 'paid') return errorReply(409, 'INVALID_STATE', `cannot settle a ${charge.state} charge`);
        if (charge.settledAt === null) charge.settledAt = this.#deps.clock.now();
        return undefined;
    }
  }

  #simulatePay(charge: SandboxCharge, amountMinor: bigint | undefined): ProviderReply | undefined {
    if (!['active', 'partially_paid', 'expired', 'closed'].includes(charge.state)) {
      return errorReply(409, 'INVALID_STATE', `cannot pay a ${charge.state} charge`);
    }
    const late = charge.state === 'expired' || charge.state === 'closed';
    const amount = amountMinor ?? charge.amountMinor - charge.amountPaidMinor;
    if (amount <= 0n) return errorReply(400, 'INVALID_AMOUNT', 'amount must be positive');
    const total = charge.amountPaidMinor + amount;
    if (total < charge.amountMinor && (!this.#deps.dialect.acceptsPartialPayment || late)) {
      return errorReply(
        422,
        'AMOUNT_MISMATCH',
        late ? 'a late payment must cover the amount' : 'this channel takes the exact amount only',
      );
    }
    if (total > charge.amountMinor && !this.#deps.dialect.acceptsOverpayment) {
      return errorReply(422, 'AMOUNT_MISMATCH', 'this channel takes the exact amount only');
    }
    this.#pay(charge, amount);
    return undefined;
  }

  #pay(charge: SandboxCharge, amountMinor: bigint): void {
    const total = charge.amountPaidMinor + amountMinor;
    const now = this.#deps.clock.now();
    this.#transition(charge, total >= charge.amountMinor ? 'paid' : 'partially_paid', {
      amountPaidMinor: total,
      paidAt: total >= charge.amountMinor ? now : null,
    });
  }

  /** Applies the provider's own expiry. True when it expired the charge now. */
  #expireIfDue(charge: SandboxCharge): boolean {
    if (OPEN_STATES.has(charge.state) && this.#deps.clock.now() >= charge.expiresAt) {
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
    charge.updatedAt = this.#deps.clock.now();
    if (change.failureCode !== undefined) charge.failureCode = change.failureCode;
    if (change.amountPaidMinor !== undefined) charge.amountPaidMinor = change.amountPaidMinor;
    if (change.paidAt !== undefined) charge.paidAt = change.paidAt;
    this.#deps.notify(charge);
  }

  #takeFault(call: ChargeCall): FaultSpec | undefined {
    return spendFault(this.#deps.callFault(call));
  }
}

function refused(status: number, code: string, message: string): { ok: false; reply: ProviderReply } {
  return { ok: false, reply: errorReply(status, code, message) };
}

function withFault(reply: ProviderReply, fault: FaultSpec | undefined): ProviderReply {
  if (fault?.mode === 'timeout') return { ...reply, holdMs: null };
  if (fault?.mode === 'latency' && fault.until !== undefined) return { ...reply, holdMs: null, holdUntil: fault.until };
  if (fault?.mode === 'latency') return { ...reply, holdMs: fault.latencyMs ?? 1_000 };
  return reply;
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
