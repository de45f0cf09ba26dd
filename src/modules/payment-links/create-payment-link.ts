import { CHANNELS, type Channel, type KeyedResult, type Principal } from '../../kernel/index.ts';
import type { ErrorDetail } from '../../lib/error-catalogue.ts';
import { newId } from '../../lib/ids.ts';
import { toMajorNumber } from '../../lib/money.ts';
import type { CheckoutDeps } from '../checkouts/index.ts';
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
import { insertPaymentLink } from './payment-link-repo.ts';
import { type CreatePaymentLinkInput, EMPTY_SUMMARY, type PaymentLink } from './payment-link-types.ts';
import { paymentLinkView } from './payment-link-view.ts';
import { recordAudit } from '../audit/index.ts';

/** A link's visits create checkouts: it needs what createCheckout needs, and nothing more. */
export type PaymentLinkDeps = CheckoutDeps;

export const CREATE_PAYMENT_LINK_OPERATION = 'payment_link.create';

type Failure = Extract<KeyedResult, { kind: 'failure' }>;

/**
 * POST /payment_link/create without the HTTP, on the keyed-operation pipeline (the key finished in
 * the insert's transaction, like createCheckout). The amounts a visit may ask for are checked
 * against routing now — the fixed amount, or both bounds — so a link never promises what no
 * channel of it can serve.
 */
export async function createPaymentLink(
  deps: PaymentLinkDeps,
  principal: Principal,
  input: CreatePaymentLinkInput,
  idempotencyKey: string | undefined,
): Promise<KeyedResult> {
  const keyDeps = { store: deps.store, clock: deps.clock, leaseMs: deps.idempotencyLeaseMs, ttlMs: deps.idempotencyTtlMs };
  const now = deps.clock.now();
  const id = newId('paymentLink', now.getTime());
  const op = keyedOperation(principal, CREATE_PAYMENT_LINK_OPERATION, idempotencyKey, input, id);
  let decision = op === undefined ? undefined : await existingKeyDecision(keyDeps, op);
  if (decision?.kind === 'answer') return decision.result;

  const refused = await unservable(deps, principal, input);
  if (refused !== undefined) return refused;
  if (op !== undefined && decision === undefined) {
    decision = await startKeyedOperation(keyDeps, op);
    if (decision.kind === 'answer') return decision.result;
  }
  const leaseToken = decision?.kind === 'proceed' ? decision.leaseToken : undefined;

  const link: PaymentLink = {
    id,
    merchantId: principal.merchantId,
    environment: principal.environment,
    active: true,
    amount: input.amount,
    currency: input.currency,
    description: input.description,
    channels: input.channels,
    successUrl: input.successUrl,
    cancelUrl: input.cancelUrl,
    maxUses: input.maxUses,
    expiresAt: input.expiresAt,
    checkoutExpiresInSeconds: input.checkoutExpiresInSeconds,
    apiVersion: principal.apiVersion,
    version: 1,
    createdAt: now,
    updatedAt: now,
    deactivatedAt: null,
  };
  const body = JSON.stringify(paymentLinkView(link, EMPTY_SUMMARY, deps.publicBaseUrl, now));
  const written = await unlessLeaseLost(
    deps.store.transaction(async (tx) => {
      await insertPaymentLink(tx, link);
      await recordAudit(tx, principal, {
        action: 'payment_link.created',
        objectType: 'payment_link',
        objectId: link.id,
        changes: { currency: link.currency },
        at: now,
      });
      await finishKeyWithin(tx, keyDeps, op, leaseToken, { status: 201, body });
      return true;
    }),
  );
  if (written === undefined) return inProgress(1);
  return { kind: 'response', status: 201, body, replayed: false };
}

/**
 * Every amount a visit may ask for must be servable: with `channels`, by each of them (as a
 * checkout's channels must be); without, by some channel. Connector bounds are intervals, so the
 * two bounds of a payer-entered link stand for every amount between them.
 */
async function unservable(
  deps: PaymentLinkDeps,
  principal: Principal,
  input: CreatePaymentLinkInput,
): Promise<Failure | undefined> {
  const settings = principal.settings ?? (await findMerchantSettings(deps.store, principal.merchantId));
  const enabled = deps.connectors.enabledFor(principal.environment);
  const amounts: { field: string; minor: bigint }[] =
    input.amount.kind === 'fixed'
      ? [{ field: 'amount', minor: input.amount.amountMinor }]
      : [
          { field: 'amount_min', minor: input.amount.minMinor },
          { field: 'amount_max', minor: input.amount.maxMinor },
        ];
  const route = (channel: Channel | 'auto', amountMinor: bigint) =>
    routePayment({ channel, currency: input.currency, amountMinor }, enabled, settings.routing);
  if (input.channels !== null) {
    const channels = input.channels;
    const issues: ErrorDetail[] = amounts.flatMap(({ field, minor }) =>
      channels.flatMap((channel, i) => {
        const r = route(channel, minor);
        return r.ok
          ? []
          : [
              {
                field: `channels[${i}]`,
                issue: r.code,
                message: `${channel} cannot serve ${field} ${toMajorNumber(minor, input.currency)} ${input.currency}: ${r.message}`,
              },
            ];
      }),
    );
    return issues.length === 0
      ? undefined
      : { kind: 'failure', code: 'channel_unavailable', message: 'A channel asked for cannot serve this link.', details: issues };
  }
  for (const { field, minor } of amounts) {
    if (CHANNELS.some((channel) => route(channel, minor).ok)) continue;
    const auto = route('auto', minor);
    if (auto.ok) {
      return { kind: 'failure', code: 'channel_unavailable', message: `No channel can serve ${field}.`, details: [{ field }] };
    }
    return {
      kind: 'failure',
      code: auto.code,
      message: auto.message,
      details: auto.details.map((d) => ({ ...d, field })),
    };
  }
  return undefined;
}
