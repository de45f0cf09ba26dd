import type { Logger } from '../../lib/logger.ts';
import type { Connector, ConnectorCapabilities } from '../core/connector.ts';
import { createHttpConnector } from '../core/http-connector.ts';
import { createProviderHttp, type ProviderHttpOptions } from '../core/provider-http.ts';
import { exampleTransformers } from './transformers.ts';

/**
 * TEMPLATE — the connector file of a new connector (docs/connectors.md, "Adding a connector").
 * Not registered anywhere: copy the folder, rename, fill in the provider's real capabilities, then
 * add the factory to `builtInConnectors` in src/runtime.ts and a harness to the contract suite.
 */
export const exampleBankCapabilities: ConnectorCapabilities = {
  connector: 'example_bank',
  displayName: 'Example Bank (virtual accounts)',
  channel: 'bank',
  // A real provider: false. Production keys reach it once an operator lists it in PRODUCTION_CONNECTORS.
  simulator: false,
  instruments: [{ code: 'EXB', name: 'Example Bank' }],
  currencies: { IDR: { minMinor: 1_000_000n, maxMinor: 10_000_000_000n } },
  instructionTtl: { defaultMs: 24 * 3_600_000, minMs: 3_600_000, maxMs: 7 * 24 * 3_600_000 },
  supports: { cancel: true, refund: true, partialRefund: true, settlement: true },
  notificationTrust: 'signed',
};

export interface ExampleBankOptions {
  baseUrl: string;
  apiKey: string;
  /** The current signing secret, plus the previous one while the provider rotates it. */
  webhookSecrets: readonly string[];
  log: Logger;
  http?: Pick<ProviderHttpOptions, 'maxRetries' | 'retryBackoffMs' | 'perTryTimeoutMs' | 'fetchImpl'>;
}

export function createExampleBankConnector(options: ExampleBankOptions): Connector {
  return createHttpConnector({
    capabilities: exampleBankCapabilities,
    http: createProviderHttp({
      connector: exampleBankCapabilities.connector,
      baseUrl: () => options.baseUrl,
      apiKey: options.apiKey,
      log: options.log,
      ...options.http,
    }),
    paths: { charges: '/v2/payment_requests', closeVerb: 'cancel', refunds: '/v2/refunds', settlements: '/v2/settlements' },
    transformers: exampleTransformers,
    signature: { header: 'example-signature', secrets: options.webhookSecrets },
  });
}
