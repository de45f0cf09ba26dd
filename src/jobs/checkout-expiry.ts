import { type ExpireDeps, expireDueCheckouts } from '../modules/checkouts/index.ts';
import type { Job } from './job-runner.ts';

/**
 * Ends every open checkout at its `expires_at` (`checkout.expired`) and cancels its pending payment
 * at the provider; the payment's own expiry sweeper still ends it if the provider does not answer.
 */
export function checkoutExpiryJob(deps: ExpireDeps): Job {
  const batchSize = 50;
  return { name: 'checkout-expiry', intervalMs: 10_000, batchSize, run: () => expireDueCheckouts(deps, batchSize) };
}
