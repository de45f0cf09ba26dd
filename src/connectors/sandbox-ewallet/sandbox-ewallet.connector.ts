import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { createHttpConnector } from '../core/http-connector.ts';
import { createProviderHttp } from '../core/provider-http.ts';
import type { SandboxConnectorOptions } from '../core/sandbox-wire.ts';
import { ewalletTransformers } from './transformers.ts';

export const sandboxEwalletCapabilities: ConnectorCapabilities = {
  connector: 'sandbox_ewallet',
  displayName: 'Sandbox e-wallet',
  channel: 'ewallet',
  simulator: true,
  instruments: [
    { code: 'SANDBOXPAY', name: 'SandboxPay' },
    { code: 'DANA', name: 'DANA (sandbox)' },
    { code: 'GCASH', name: 'GCash (sandbox)' },
  ],
  currencies: {
    IDR: { minMinor: 10_000n, maxMinor: 2_000_000_000n }, // 100.00 – 20,000,000.00
    PHP: { minMinor: 100n, maxMinor: 10_000_000n }, // 1.00 – 100,000.00
    VND: { minMinor: 1_000n, maxMinor: 50_000_000n }, // 1,000 – 50,000,000 (no minor unit)
  },
  instructionTtl: { defaultMs: 30 * 60_000, minMs: 5 * 60_000, maxMs: 24 * 3_600_000 },
  supports: { cancel: true, refund: true, partialRefund: true, settlement: true },
  notificationTrust: 'signed',
};

/** The sandbox e-wallet: checkout URL, deep link and QR string, over HTTP. */
export function createSandboxEwalletConnector(options: SandboxConnectorOptions): Connector {
  return createHttpConnector({
    capabilities: sandboxEwalletCapabilities,
    http: createProviderHttp({
      connector: sandboxEwalletCapabilities.connector,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      log: options.log,
      ...options.http,
    }),
    paths: {
      charges: '/ewallet/v1/charges',
      closeVerb: 'void',
      refunds: '/ewallet/v1/refunds',
      settlements: '/ewallet/v1/settlements',
    },
    transformers: ewalletTransformers,
    signature: { header: 'x-ewallet-signature', secrets: options.webhookSecrets },
  });
}
