import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { createFixedObjectConnector } from './fixed-object-connector.ts';
import { fpcCreateBody, fpcIssued, fpcSnapshot, parseFpcCallback } from './transformers.ts';
import type { XenditClient } from './xendit-client.ts';

const HOUR_MS = 3_600_000;

const OUTLETS: Readonly<Record<string, { name: string; outlets: string[] }>> = {
  ALFAMART: { name: 'Alfamart', outlets: ['Alfamart', 'Alfamidi', 'Lawson', 'DAN+DAN'] },
  INDOMARET: { name: 'Indomaret', outlets: ['Indomaret', 'Indogrosir', 'Superindo'] },
};

export const xenditCounterCapabilities: ConnectorCapabilities = {
  connector: 'xendit_counter',
  displayName: 'Xendit (retail outlets)',
  channel: 'counter',
  simulator: false,
  instruments: Object.entries(OUTLETS).map(([code, o]) => ({ code, name: o.name })),
  // Xendit: IDR 10,000 – 5,000,000 (Alfamart stops at 2,500,000: Xendit refuses above, we fail over).
  currencies: { IDR: { minMinor: 1_000_000n, maxMinor: 500_000_000n } },
  instructionTtl: { defaultMs: 48 * HOUR_MS, minMs: HOUR_MS, maxMs: 7 * 24 * HOUR_MS },
  supports: { cancel: true, refund: false, partialRefund: false, settlement: true },
  notificationTrust: 'query',
};

/** Xendit Retail Outlets: one single-use fixed payment code per attempt (external_id = attempt id). */
export function createXenditCounterConnector(client: XenditClient): Connector {
  return createFixedObjectConnector(client, {
    capabilities: xenditCounterCapabilities,
    path: '/fixed_payment_code',
    label: 'payment code',
    category: 'RETAIL_OUTLET',
    createBody: fpcCreateBody,
    issued: (body) => fpcIssued(body, OUTLETS),
    snapshot: fpcSnapshot,
    parseCallback: parseFpcCallback,
    refundRefusal: 'Xendit retail outlet payments cannot be refunded by API',
  });
}
