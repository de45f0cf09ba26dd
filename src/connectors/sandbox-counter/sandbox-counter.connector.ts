import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { createHttpConnector } from '../core/http-connector.ts';
import { createProviderHttp } from '../core/provider-http.ts';
import type { SandboxConnectorOptions } from '../core/sandbox-wire.ts';
import { counterTransformers } from './transformers.ts';

export const sandboxCounterCapabilities: ConnectorCapabilities = {
  connector: 'sandbox_counter',
  displayName: 'Sandbox over-the-counter',
  channel: 'counter',
  simulator: true,
  instruments: [
    { code: 'ALFAMART', name: 'Alfamart (sandbox)' },
    { code: 'INDOMARET', name: 'Indomaret (sandbox)' },
  ],
  currencies: {
    IDR: { minMinor: 1_000_000n, maxMinor: 500_000_000n }, // 10,000.00 – 5,000,000.00
    PHP: { minMinor: 5_000n, maxMinor: 5_000_000n }, // 50.00 – 50,000.00
  },
  instructionTtl: { defaultMs: 48 * 3_600_000, minMs: 3_600_000, maxMs: 7 * 24 * 3_600_000 },
  supports: { cancel: true, refund: false, partialRefund: false, settlement: true },
  notificationTrust: 'signed',
};

/** The sandbox retail counter partner: payment codes and the outlets that take them, over HTTP. */
export function createSandboxCounterConnector(options: SandboxConnectorOptions): Connector {
  return createHttpConnector({
    capabilities: sandboxCounterCapabilities,
    http: createProviderHttp({
      connector: sandboxCounterCapabilities.connector,
      baseUrl: options.baseUrl,
      apiKey: options.apiKey,
      log: options.log,
      ...options.http,
    }),
    paths: {
      charges: '/counter/v1/payment_codes',
      closeVerb: 'cancel',
      refunds: '/counter/v1/refunds',
      settlements: '/counter/v1/settlements',
    },
    transformers: counterTransformers,
    signature: { header: 'x-sandbox-signature', secrets: options.webhookSecrets },
  });
}
