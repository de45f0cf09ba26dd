import type { Store } from '../db/store.ts';
import type { Clock } from '../lib/clock.ts';
import type { Logger } from '../lib/logger.ts';

/** What every module that changes payments needs; modules extend it with their own ports. */
export interface LifecycleDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** Base of the links handed out (`pay_url`). */
  publicBaseUrl: string;
}
