import { randomBytes } from 'node:crypto';
import { timestampedSignatureHeader } from '../lib/hmac-signature.ts';
import { spendFault } from './fault-budget.ts';
import type { ProviderDialect, ProviderOptions } from './sandbox-types.ts';

/**
 * Notification faults, applied when a notification is queued: `drop` never queues it, `duplicate`
 * queues the same event twice, `hold` keeps it until release(), `delay` sends it `delayMs` later.
 */
export type NotificationFaultMode = 'drop' | 'duplicate' | 'hold' | 'delay';
export interface NotificationFault {
  mode: NotificationFaultMode;
  delayMs?: number;
  remaining?: number;
}

/** Builds a notification's body when it is queued, under its event id. */
export type RenderNotification = (eventId: string, now: Date) => Record<string, unknown>;

const MAX_NOTIFICATION_ATTEMPTS = 15;
const MAX_NOTIFICATION_BACKOFF_MS = 5 * 60_000;
const NOTIFICATION_TIMEOUT_MS = 5_000;
const DISPATCH_BATCH = 100;

interface OutboxItem {
  eventId: string;
  chargeId: string;
  sequence: number;
  body: string;
  deliverAt: Date;
  attempts: number;
  held: boolean;
}

export interface NotificationOutboxDeps {
  dialect: ProviderDialect;
  options: ProviderOptions;
  /** The notification fault set now (read at every queueing: the control API replaces the faults). */
  fault: () => NotificationFault | undefined;
  /** Runs before every dispatch, so what has just become due (a finished refund) goes out in it. */
  beforeDispatch: () => void;
}

/**
 * The provider's asynchronous, signed notifications to Tributary: queued in memory, sent oldest
 * first, retried with capped exponential backoff and given up after MAX_NOTIFICATION_ATTEMPTS.
 */
export class NotificationOutbox {
  readonly #deps: NotificationOutboxDeps;
  #items: OutboxItem[] = [];
  #dispatching: Promise<number> | undefined;
  /** Notifications that reached Tributary with a 2xx (for tests and the control API). */
  delivered = 0;
  dropped = 0;

  constructor(deps: NotificationOutboxDeps) {
    this.#deps = deps;
  }

  get size(): number {
    return this.#items.length;
  }

  queue(chargeId: string, sequence: number, render: RenderNotification): void {
    const now = this.#now();
    const fault = spendFault(this.#deps.fault());
    if (fault?.mode === 'drop') {
      this.dropped += 1;
      return;
    }
    const eventId = `${this.#deps.dialect.referencePrefix}evt_${randomBytes(8).toString('hex')}`;
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
    this.#items.push(item);
    // A duplicate is the same event (same id, same body) delivered twice.
    if (fault?.mode === 'duplicate') this.#items.push({ ...item });
    if (this.#deps.options.autoDispatch && !item.held) setImmediate(() => void this.dispatchDue());
  }

  /** Sends the notifications that are due, oldest first. One run at a time. */
  async dispatchDue(): Promise<number> {
    if (this.#dispatching !== undefined) return this.#dispatching;
    this.#deps.beforeDispatch();
    this.#dispatching = this.#dispatch().finally(() => {
      this.#dispatching = undefined;
    });
    return this.#dispatching;
  }

  /** Releases held notifications (fault `hold`), in queue order or reversed. */
  release(order: 'queued' | 'reverse'): number {
    const held = this.#items.filter((i) => i.held);
    const now = this.#now();
    held.forEach((item, index) => {
      item.held = false;
      // The order is made by due times (all already due), so the next dispatch sends them in it.
      item.deliverAt = new Date(now.getTime() - (order === 'reverse' ? index : held.length - index));
    });
    this.#items.sort((a, b) => a.deliverAt.getTime() - b.deliverAt.getTime());
    return held.length;
  }

  clear(): void {
    this.#items = [];
  }

  #now(): Date {
    return this.#deps.options.clock.now();
  }

  async #dispatch(): Promise<number> {
    let sent = 0;
    const now = this.#now();
    const due = this.#items.filter((i) => !i.held && i.deliverAt <= now).slice(0, DISPATCH_BATCH);
    for (const item of due) {
      const ok = await this.#send(item);
      if (ok) {
        this.#items = this.#items.filter((i) => i !== item);
        this.delivered += 1;
        sent += 1;
      } else {
        this.#retryLater(item);
      }
    }
    return sent;
  }

  /** Backs off after a failed send, or gives up once the attempts are spent. */
  #retryLater(item: OutboxItem): void {
    item.attempts += 1;
    if (item.attempts >= MAX_NOTIFICATION_ATTEMPTS) {
      this.#deps.options.log.warn(
        { event_id: item.eventId, connector: this.#deps.dialect.connector },
        'sandbox notification given up',
      );
      this.#items = this.#items.filter((i) => i !== item);
    } else {
      const backoffMs = Math.min(1_000 * 2 ** item.attempts, MAX_NOTIFICATION_BACKOFF_MS);
      item.deliverAt = new Date(this.#now().getTime() + backoffMs);
    }
  }

  async #send(item: OutboxItem): Promise<boolean> {
    const { options, dialect } = this.#deps;
    const url = `${options.callbackBaseUrl()}/provider/${dialect.connector}/callback`;
    try {
      const res = await (options.fetchImpl ?? fetch)(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          // Signed when sent, not when queued: a delayed notification still carries a fresh time.
          [dialect.signatureHeader]: timestampedSignatureHeader(options.webhookSecret, item.body, this.#now()),
        },
        body: item.body,
        redirect: 'error',
        signal: AbortSignal.timeout(NOTIFICATION_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      return res.status >= 200 && res.status < 300;
    } catch (err) {
      options.log.debug({ err, event_id: item.eventId }, 'sandbox notification not delivered');
      return false;
    }
  }
}
