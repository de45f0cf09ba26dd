import { createHash } from 'node:crypto';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import { CHANNELS, type Channel, type KeyedResult, type LifecycleDeps, type Principal } from '../../kernel/index.ts';
import type { ErrorDetail } from '../../lib/error-catalogue.ts';
import { newId } from '../../lib/ids.ts';
import { randomToken } from '../../lib/random.ts';
import {
  existingKeyDecision,
  finishKeyWithin,
  inProgress,
  keyedOperation,
  startKeyedOperation,
  unlessLeaseLost,
} from '../idempotency/index.ts';
import { findMerchantSettings } from '../merchants/index.ts';
import { routePayment } from '../routing/index.ts';
import { insertCheckout } from './checkout-repo.ts';
import type { Checkout, CreateCheckoutInput } from './checkout-types.ts';
import { checkoutView } from './checkout-view.ts';

export interface CheckoutDeps extends LifecycleDeps {
  connectors: ConnectorRegistry;
  idempotencyLeaseMs: number;
  idempotencyTtlMs: number;
}

export const CREATE_CHECKOUT_OPERATION = 'checkout.create';

/** The client secret is kept only as this hash: a leaked table cannot select for a payer. */
export const clientSecretHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

/**
 * POST /checkout/create without the HTTP: on the keyed-operation pipeline (its key finished in the
 * same transaction as the insert, like cancel and refund). The channels offered are checked
 * against routing now, so the payer is never shown a method nobody can serve.
 */
export async function createCheckout(
  deps: CheckoutDeps,
  principal: Principal,
  input: CreateCheckoutInput,
  idempotencyKey: string | undefined,
  /** `id`: chosen by the caller, who recorded it first (a payment link's visit, docs/checkout.md section 8). */
  options: { id?: string } = {},
): Promise<KeyedResult> {
  const keyDeps = { store: deps.store, clock: deps.clock, leaseMs: deps.idempotencyLeaseMs, ttlMs: deps.idempotencyTtlMs };
  const now = deps.clock.now();
  const id = options.id ?? newId('checkout', now.getTime());
  const op = keyedOperation(principal, CREATE_CHECKOUT_OPERATION, idempotencyKey, input, id);
  let decision = op === undefined ? undefined : await existingKeyDecision(keyDeps, op);
  if (decision?.kind === 'answer') return decision.result;

  const channels = await servableChannels(deps, principal, input);
  if (channels.kind === 'failure') return channels;
  if (op !== undefined && decision === undefined) {
    decision = await startKeyedOperation(keyDeps, op);
    if (decision.kind === 'answer') return decision.result;
  }
  const leaseToken = decision?.kind === 'proceed' ? decision.leaseToken : undefined;

  const clientSecret = `${id}_secret_${randomToken(24)}`;
  const checkout: Checkout = {
    id,
    merchantId: principal.merchantId,
    environment: principal.environment,
    status: 'open',
    amountMinor: input.amountMinor,
    currency: input.currency,
    referenceNo: input.referenceNo,
    description: input.description,
    email: input.email,
    metadata: input.metadata,
    callbackUrl: input.callbackUrl,
    channels: channels.channels,
    successUrl: input.successUrl,
    cancelUrl: input.cancelUrl,
    clientSecretHash: clientSecretHash(clientSecret),
    apiVersion: principal.apiVersion,
    expiresAt: new Date(now.getTime() + input.expiresInSeconds * 1000),
    currentPaymentId: null,
    completedPaymentId: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    closedAt: null,
    payerDataErasedAt: null,
  };
  const body = JSON.stringify({ ...checkoutView(checkout, [], deps.publicBaseUrl), client_secret: clientSecret });
  const written = await unlessLeaseLost(
    deps.store.transaction(async (tx) => {
      await insertCheckout(tx, checkout);
      await finishKeyWithin(tx, keyDeps, op, leaseToken, { status: 201, body });
      return true;
    }),
  );
  if (written === undefined) return inProgress(1);
  return { kind: 'response', status: 201, body, replayed: false };
}

/** The channels asked for (each must be servable), or every servable one. */
async function servableChannels(
  deps: CheckoutDeps,
  principal: Principal,
  input: CreateCheckoutInput,
): Promise<{ kind: 'ok'; channels: Channel[] } | Extract<KeyedResult, { kind: 'failure' }>> {
  const settings = principal.settings ?? (await findMerchantSettings(deps.store, principal.merchantId));
  const enabled = deps.connectors.enabledFor(principal.environment);
  const route = (channel: Channel) =>
    routePayment({ channel, currency: input.currency, amountMinor: input.amountMinor }, enabled, settings.routing);
  if (input.channels !== null) {
    const issues: ErrorDetail[] = input.channels.flatMap((channel, i) => {
      const r = route(channel);
      return r.ok ? [] : [{ field: `channels[${i}]`, issue: r.code, message: `${channel}: ${r.message}` }];
    });
    if (issues.length > 0) {
      return {
        kind: 'failure',
        code: 'channel_unavailable',
        message: 'A channel asked for cannot serve this payment.',
        details: issues,
      };
    }
    return { kind: 'ok', channels: input.channels };
  }
  const servable = CHANNELS.filter((channel) => route(channel).ok);
  if (servable.length > 0) return { kind: 'ok', channels: servable };
  const auto = routePayment(
    { channel: 'auto', currency: input.currency, amountMinor: input.amountMinor },
    enabled,
    settings.routing,
  );
  return auto.ok
    ? { kind: 'failure', code: 'channel_unavailable', message: 'No channel can serve this payment.', details: [] }
    : { kind: 'failure', code: auto.code, message: auto.message, details: auto.details };
}
