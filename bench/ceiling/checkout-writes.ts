import type { ConnectorRegistry } from '../../src/connectors/core/registry.ts';
import type { Store } from '../../src/db/store.ts';
import type { Principal } from '../../src/kernel/index.ts';
import { systemClock } from '../../src/lib/clock.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import type { Logger } from '../../src/lib/logger.ts';
import { type CheckoutDeps, createCheckout } from '../../src/modules/checkouts/index.ts';
import { findMerchantSettings } from '../../src/modules/merchants/index.ts';

/**
 * The ceiling of a checkout create: `createCheckout` itself (the key read, the key started, the
 * checkout inserted with the key finished in one transaction, routing's in-memory servability
 * check), called without HTTP, with the merchant's settings at hand as the server's auth cache
 * has them. What the checkout_create scenario does beyond it is the HTTP request: its ratio is the
 * share of a checkout create's cost that is not HTTP. A payment create's ceiling would not do:
 * a checkout writes less (no attempt, no provider call), and would beat it.
 */
export interface CheckoutWritesContext {
  deps: CheckoutDeps;
  principal: Principal;
}

export async function checkoutWritesContext(o: {
  store: Store;
  connectors: ConnectorRegistry;
  log: Logger;
  principal: Principal;
}): Promise<CheckoutWritesContext> {
  const settings = await findMerchantSettings(o.store, o.principal.merchantId);
  return {
    deps: {
      store: o.store,
      clock: systemClock,
      log: o.log,
      publicBaseUrl: 'http://127.0.0.1:8080',
      connectors: o.connectors,
      idempotencyLeaseMs: 60_000,
      idempotencyTtlMs: 24 * 3_600_000,
    },
    principal: { ...o.principal, settings },
  };
}

export async function writeOneCheckout(ctx: CheckoutWritesContext, seq: number): Promise<void> {
  const key = `ceiling-cs-${process.pid}-${seq}`;
  const result = await createCheckout(
    ctx.deps,
    ctx.principal,
    {
      amountMinor: 15_000_000n,
      currency: 'IDR' as CurrencyCode,
      referenceNo: key,
      description: null,
      email: 'payer@example.com',
      metadata: {},
      callbackUrl: null,
      channels: null,
      successUrl: null,
      cancelUrl: null,
      expiresInSeconds: 86_400,
    },
    key,
  );
  if (result.kind !== 'response' || result.status !== 201) throw new Error(`checkout ceiling: ${JSON.stringify(result)}`);
}
