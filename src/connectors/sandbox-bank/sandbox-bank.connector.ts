import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { createHttpConnector } from '../core/http-connector.ts';
import { createProviderHttp } from '../core/provider-http.ts';
import type { SandboxConnectorOptions } from '../core/sandbox-wire.ts';
import { bankTransformers } from './transformers.ts';

const HOUR_MS = 3_600_000;

export const sandboxBankCapabilities: ConnectorCapabilities = {
  connector: 'sandbox_bank',
  displayName: 'Sandbox Bank (virtual accounts)',
  channel: 'bank',
  simulator: true,
  instruments: [
    { code: 'BCA', name: 'Bank Central Asia' },
    { code: 'BNI', name: 'Bank Negara Indonesia' },
    { code: 'BRI', name: 'Bank Rakyat Indonesia' },
    { code: 'MANDIRI', name: 'Bank Mandiri' },
    { code: 'PERMATA', name: 'Bank Permata' },
  ],
  currencies: {
    IDR: { minMinor: 1_000_000n, maxMinor: 5_000_000_000_000n }, // 10,000.00 – 50,000,000,000.00
    PHP: { minMinor: 10_000n, maxMinor: 100_000_000n }, // 100.00 – 1,000,000.00
  },
  instructionTtl: { defaultMs: 24 * HOUR_MS, minMs: 15 * 60_000, maxMs: 30 * 24 * HOUR_MS },
  supports: { cancel: true, refund: true, partialRefund: true, settlement: true },
  notificationTrust: 'signed',
};

/** The Sandbox Bank's virtual accounts, reached over HTTP like a real bank API. */
export function createSandboxBankConnector(options: SandboxConnectorOptions): Connector {
  return createHttpConnector({
    capabilities: sandboxBankCapabilities,
    http: createProviderHttp({
      connector: sandboxBankCapabilities.connector,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      log: options.log,
      ...options.http,
    }),
    paths: {
      charges: '/bank/v1/virtual_accounts',
      closeVerb: 'close',
      refunds: '/bank/v1/refunds',
      settlements: '/bank/v1/settlements',
    },
    transformers: bankTransformers,
    signature: { header: 'x-sandbox-signature', secrets: options.webhookSecrets },
  });
}
