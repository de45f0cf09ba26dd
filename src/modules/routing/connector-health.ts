import type { ConnectorHealthSnapshot } from './route-payment.ts';

/**
 * Connector health, tracked in process: consecutive failed provider calls (timeouts, transport
 * errors, 5xx — a provider that answers "declined" is up) per connector. Routing receives a
 * snapshot as a plain input and demotes a connector that is `down`; after `coolDownMs` without a
 * new failure it is tried in its normal place again (half-open), and one more failure makes it
 * `down` again. Each process keeps its own view: health is a routing hint, never a correctness
 * matter, so it need not be shared.
 */
export interface HealthPolicy {
  /** Consecutive failures from which a connector is `down`. */
  downAfter: number;
  coolDownMs: number;
}

export const DEFAULT_HEALTH_POLICY: HealthPolicy = { downAfter: 3, coolDownMs: 60_000 };

export interface HealthRecord {
  consecutiveFailures: number;
  lastFailureAtMs: number | null;
}

/** Pure: the state of one connector at `nowMs`. */
export function classifyHealth(record: HealthRecord, nowMs: number, policy: HealthPolicy): ConnectorHealthSnapshot {
  const n = record.consecutiveFailures;
  if (n === 0) return { state: 'healthy', consecutiveFailures: 0 };
  const recent = record.lastFailureAtMs !== null && nowMs - record.lastFailureAtMs < policy.coolDownMs;
  return { state: n >= policy.downAfter && recent ? 'down' : 'degraded', consecutiveFailures: n };
}

/** Bounded: one record per connector name seen, and connectors are a fixed, small set. */
export class ConnectorHealthTracker {
  readonly #records = new Map<string, HealthRecord>();
  readonly #policy: HealthPolicy;

  constructor(policy: HealthPolicy = DEFAULT_HEALTH_POLICY) {
    this.#policy = policy;
  }

  record(connector: string, ok: boolean, at: Date): void {
    const r = this.#records.get(connector) ?? { consecutiveFailures: 0, lastFailureAtMs: null };
    if (ok) r.consecutiveFailures = 0;
    else {
      r.consecutiveFailures += 1;
      r.lastFailureAtMs = at.getTime();
    }
    this.#records.set(connector, r);
  }

  snapshot(now: Date): Record<string, ConnectorHealthSnapshot> {
    const out: Record<string, ConnectorHealthSnapshot> = {};
    for (const [name, r] of this.#records) out[name] = classifyHealth(r, now.getTime(), this.#policy);
    return out;
  }
}
