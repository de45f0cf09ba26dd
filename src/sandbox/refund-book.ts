import { randomBytes } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import type { ChargeBook } from './charge-book.ts';
import { spendFault } from './fault-budget.ts';
import { errorReply, type ProviderReply } from './sandbox-types.ts';
import { parseMinor } from './wire-format.ts';

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

export interface RefundBookDeps {
  supportsRefund: boolean;
  clock: Clock;
  charges: ChargeBook;
  /** The refund fault set now (read at every refund: the control API replaces the faults). */
  fault: () => RefundFault | undefined;
  /** Told when a refund finishes, either way. */
  notify: (refund: SandboxRefund) => void;
}

/**
 * The provider's refunds, keyed by the caller's idempotency key. A refund takes its amount from the
 * charge at once and finishes later; a failed one gives the amount back.
 */
export class RefundBook {
  readonly #deps: RefundBookDeps;
  readonly #refunds = new Map<string, SandboxRefund>();

  constructor(deps: RefundBookDeps) {
    this.#deps = deps;
  }

  refund(idempotencyKey: string | undefined, body: unknown): ProviderReply {
    if (!this.#deps.supportsRefund) return errorReply(422, 'REFUND_NOT_SUPPORTED', 'this channel does not support refunds');
    if (idempotencyKey === undefined || idempotencyKey === '') {
      return errorReply(400, 'IDEMPOTENCY_KEY_REQUIRED', 'send an Idempotency-Key header');
    }
    const request = parseRefundRequest(body);
    if (request === undefined) return errorReply(400, 'INVALID_REQUEST', 'charge_id and a positive amount_minor are required');
    const fingerprint = `${request.chargeId}:${request.amountMinor}`;
    const existing = this.#refunds.get(idempotencyKey);
    if (existing !== undefined) {
      // A re-sent refund: the same refund again, in its current state (how Tributary asks).
      if (existing.fingerprint !== fingerprint) return errorReply(422, 'IDEMPOTENCY_KEY_REUSED', 'different refund for this key');
      this.#finishIfDue(existing);
      return { status: 200, body: renderRefund(existing) };
    }
    const fault = spendFault(this.#deps.fault());
    if (fault?.mode === 'error') return errorReply(503, 'TEMPORARILY_UNAVAILABLE', 'simulated provider outage');
    if (fault?.mode === 'decline') return errorReply(400, 'DECLINED', 'simulated refund decline');
    const charge = this.#deps.charges.find(request.chargeId);
    if (charge === undefined) return errorReply(404, 'NOT_FOUND', 'no such charge');
    if (charge.state !== 'paid') return errorReply(409, 'NOT_REFUNDABLE', `charge is ${charge.state}`);
    if (charge.amountRefundedMinor + request.amountMinor > charge.amountPaidMinor) {
      return errorReply(422, 'AMOUNT_EXCEEDS_PAID', 'refunds may not exceed the paid amount');
    }
    charge.amountRefundedMinor += request.amountMinor;
    const refund = this.#open(idempotencyKey, charge.id, request.amountMinor, fingerprint, fault);
    const reply: ProviderReply = { status: 201, body: renderRefund(refund) };
    // Like a create that hangs: the refund exists, the caller never hears about it.
    return fault?.mode === 'timeout' ? { ...reply, holdMs: null } : reply;
  }

  /** The sandbox's control for refunds: finish a pending refund now, as `outcome`. */
  complete(externalId: string, outcome: 'SUCCEEDED' | 'FAILED'): boolean {
    const refund = this.#refunds.get(externalId);
    if (refund === undefined || refund.state !== 'PENDING') return false;
    refund.outcome = outcome;
    refund.completeAt = this.#deps.clock.now();
    return this.#finishIfDue(refund);
  }

  /** Finishes every pending refund whose time has come. Returns how many finished now. */
  finishDue(): number {
    let finished = 0;
    for (const refund of this.#refunds.values()) {
      if (this.#finishIfDue(refund)) finished += 1;
    }
    return finished;
  }

  #open(
    idempotencyKey: string,
    chargeId: string,
    amountMinor: bigint,
    fingerprint: string,
    fault: RefundFault | undefined,
  ): SandboxRefund {
    const now = this.#deps.clock.now();
    const refund: SandboxRefund = {
      id: `rfd_${randomBytes(8).toString('hex')}`,
      externalId: idempotencyKey,
      chargeId,
      amountMinor,
      fingerprint,
      state: 'PENDING',
      completeAt: new Date(now.getTime() + pendingMsOf(fault)),
      outcome: fault?.mode === 'fail' ? 'FAILED' : 'SUCCEEDED',
      failureCode: null,
      createdAt: now,
      updatedAt: now,
    };
    this.#refunds.set(idempotencyKey, refund);
    return refund;
  }

  /** Finishes a pending refund whose time has come and notifies. True when it finished now. */
  #finishIfDue(refund: SandboxRefund): boolean {
    if (refund.state !== 'PENDING' || this.#deps.clock.now() < refund.completeAt) return false;
    refund.state = refund.outcome;
    refund.updatedAt = this.#deps.clock.now();
    if (refund.outcome === 'FAILED') {
      refund.failureCode = 'REFUND_REJECTED';
      const charge = this.#deps.charges.find(refund.chargeId);
      if (charge !== undefined) charge.amountRefundedMinor -= refund.amountMinor;
    }
    this.#deps.notify(refund);
    return true;
  }
}

/** A refund's notification: a change of the refund, in the providers' common refund shape. */
export function renderRefundNotification(eventId: string, refund: SandboxRefund, at: Date): Record<string, unknown> {
  return {
    id: eventId,
    event: 'refund.status_changed',
    created: at.toISOString(),
    refund: renderRefund(refund),
  };
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

function parseRefundRequest(body: unknown): { chargeId: string; amountMinor: bigint } | undefined {
  const b = (body ?? {}) as Record<string, unknown>;
  const amountMinor = parseMinor(b['amount_minor']);
  const chargeId = b['charge_id'];
  if (typeof chargeId !== 'string' || amountMinor === undefined || amountMinor <= 0n) return undefined;
  return { chargeId, amountMinor };
}

/** How long a new refund stays PENDING: a fault's delay, else until the provider's next look. */
function pendingMsOf(fault: RefundFault | undefined): number {
  if (fault?.mode === 'pending') return fault.delayMs ?? DEFAULT_REFUND_PENDING_MS;
  if (fault?.mode === 'fail') return fault.delayMs ?? 0;
  return 0;
}
