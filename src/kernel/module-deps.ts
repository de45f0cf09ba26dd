import type { Queryable, Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';
import type { Environment } from './tenant.ts';

/** What every module that changes payments needs; modules extend it with their own ports. */
export interface LifecycleDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** Base of the links handed out (`pay_url`). */
  publicBaseUrl: string;
  /**
   * Called in the transaction that made a payment succeed, after its event: the checkouts module
   * completes the payment's checkout there (composition.ts wires it; modules below checkouts
   * cannot import it).
   */
  paymentSucceeded?: (
    tx: Queryable,
    payment: { id: string; merchantId: string; environment: Environment },
    now: Date,
  ) => Promise<void>;
}
