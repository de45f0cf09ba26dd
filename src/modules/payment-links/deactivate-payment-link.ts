import type { KeyedResult, Principal } from '../../kernel/index.ts';
import type { PaymentLinkDeps } from './create-payment-link.ts';
import { deactivatePaymentLink, summariesOfPaymentLinks } from './payment-link-repo.ts';
import { EMPTY_SUMMARY } from './payment-link-types.ts';
import { paymentLinkView } from './payment-link-view.ts';
import { recordAudit } from '../audit/index.ts';

/**
 * POST /payment_link/{id}/deactivate: active → inactive (final). New visits are refused from then
 * on; checkouts already made stay payable until they complete or expire. Deactivating an inactive
 * link answers it unchanged. Another merchant's or environment's link is not found.
 */
export async function deactivatePaymentLinkForMerchant(
  deps: Pick<PaymentLinkDeps, 'store' | 'clock' | 'publicBaseUrl'>,
  principal: Principal,
  linkId: string,
): Promise<KeyedResult> {
  const now = deps.clock.now();
  const link = await deps.store.transaction(async (tx) => {
    const outcome = await deactivatePaymentLink(tx, principal, linkId, now);
    // An inactive link answers unchanged, and nothing is recorded.
    if (outcome?.changed === true) {
      await recordAudit(tx, principal, {
        action: 'payment_link.deactivated',
        objectType: 'payment_link',
        objectId: outcome.link.id,
        changes: { active: { from: true, to: false } },
        at: now,
      });
    }
    return outcome?.link;
  });
  if (link === undefined) return { kind: 'failure', code: 'resource_not_found', message: 'No such payment link.', details: [] };
  const summary = (await summariesOfPaymentLinks(deps.store, principal.merchantId, principal.environment, [link.id], now)).get(
    link.id,
  );
  return {
    kind: 'response',
    status: 200,
    body: JSON.stringify(paymentLinkView(link, summary ?? EMPTY_SUMMARY, deps.publicBaseUrl, now)),
    replayed: false,
  };
}
