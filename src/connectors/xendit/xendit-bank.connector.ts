import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { createFixedObjectConnector } from './fixed-object-connector.ts';
import { parseVaCallback, vaCreateBody, vaIssued, vaSnapshot } from './transformers.ts';
import type { XenditClient } from './xendit-client.ts';

const HOUR_MS = 3_600_000;

const BANKS: Readonly<Record<string, string>> = {
  BCA: 'Bank Central Asia',
  BNI: 'Bank Negara Indonesia',
  BRI: 'Bank Rakyat Indonesia',
  MANDIRI: 'Bank Mandiri',
  PERMATA: 'Bank Permata',
  BSI: 'Bank Syariah Indonesia',
  CIMB: 'CIMB Niaga',
};

export const xenditBankCapabilities: ConnectorCapabilities = {
  connector: 'xendit_bank',
  displayName: 'Xendit (fixed virtual accounts)',
  channel: 'bank',
  simulator: false,
  instruments: Object.entries(BANKS).map(([code, name]) => ({ code, name })),
  // Whole rupiah only (Xendit has no minor unit for IDR); closed single-use VAs.
  currencies: { IDR: { minMinor: 1_000_000n, maxMinor: 5_000_000_000_000n } },
  instructionTtl: { defaultMs: 24 * HOUR_MS, minMs: 15 * 60_000, maxMs: 30 * 24 * HOUR_MS },
  supports: { cancel: true, refund: false, partialRefund: false, settlement: true },
  // A static callback token authenticates the sender only: the VA and its payment are read back.
  notificationTrust: 'query',
};

/** Xendit Fixed Virtual Accounts: one closed, single-use VA per attempt (external_id = attempt id). */
export function createXenditBankConnector(client: XenditClient): Connector {
  return createFixedObjectConnector(client, {
    capabilities: xenditBankCapabilities,
    path: '/callback_virtual_accounts',
    label: 'virtual account',
    category: 'VIRTUAL_ACCOUNT',
    createBody: vaCreateBody,
    issued: (body) => vaIssued(body, BANKS),
    snapshot: vaSnapshot,
    parseCallback: parseVaCallback,
    // Xendit has no refund API for virtual-account payments (the money is returned by transfer).
    refundRefusal: 'Xendit virtual account payments cannot be refunded by API',
  });
}
