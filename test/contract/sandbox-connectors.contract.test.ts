import type { Connector } from '../../src/connectors/core/connector.ts';
import { BANK_STATUS_MAP } from '../../src/connectors/sandbox-bank/transformers.ts';
import { COUNTER_STATUS_MAP } from '../../src/connectors/sandbox-counter/transformers.ts';
import { EWALLET_STATUS_MAP } from '../../src/connectors/sandbox-ewallet/transformers.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { timestampedSignatureHeader } from '../../src/lib/hmac-signature.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { builtInConnectors } from '../../src/runtime.ts';
import { buildProvidersServer } from '../../src/sandbox/providers-server.ts';
import { createSandboxProviders } from '../../src/sandbox/sandbox-providers.ts';
import { sandboxCredentials } from '../../src/sandbox/sandbox-secrets.ts';
import { startCallbackReceiver } from '../harness/callback-receiver.ts';
import { captureLogs } from '../harness/log-capture.ts';
import { connectorContract, type ContractHarness } from './connector-contract.ts';

/**
 * The contract suite for the three sandbox connectors, against the sandbox providers running as
 * their own HTTP server (as `npm run sandbox:providers` runs them), with a small receiver standing
 * in for Tributary's callback endpoint.
 */
const MASTER_SECRET = 'contract-secret-contract-secret-0001';

const SUBJECTS = [
  {
    connector: 'sandbox_bank',
    statusMap: BANK_STATUS_MAP,
    header: 'x-sandbox-signature',
    currency: 'IDR',
    amountMinor: 15_000_000n,
  },
  {
    connector: 'sandbox_ewallet',
    statusMap: EWALLET_STATUS_MAP,
    header: 'x-ewallet-signature',
    currency: 'IDR',
    amountMinor: 5_000_000n,
  },
  {
    connector: 'sandbox_counter',
    statusMap: COUNTER_STATUS_MAP,
    header: 'x-sandbox-signature',
    currency: 'PHP',
    amountMinor: 250_000n,
  },
] as const;

for (const subject of SUBJECTS) {
  connectorContract(subject.connector, async () => {
    const clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
    const logs = captureLogs();
    // Tributary's stand-in: captures every notification the providers send.
    const receiver = await startCallbackReceiver();

    const providers = createSandboxProviders({
      clock,
      masterSecret: MASTER_SECRET,
      callbackBaseUrl: () => receiver.origin,
      log: createLogger('silent'),
      autoDispatch: false,
    });
    const server = await buildProvidersServer(providers, createLogger('silent'));
    const address = await server.listen({ host: '127.0.0.1', port: 0 });
    const connectors = builtInConnectors({
      sandboxBaseUrl: () => address,
      sandboxSecret: MASTER_SECRET,
      log: logs.log,
      http: { retryBackoffMs: 0, perTryTimeoutMs: 1_000 },
    });
    const connector = connectors.find((c) => c.capabilities.connector === subject.connector) as Connector;
    const provider = providers.byConnector(subject.connector);
    if (provider === undefined) throw new Error(`no provider for ${subject.connector}`);
    const credentials = sandboxCredentials(MASTER_SECRET, subject.connector);

    const harness: ContractHarness & { close(): Promise<void> } = {
      connector,
      clock,
      currency: subject.currency as CurrencyCode,
      amountMinor: subject.amountMinor,
      statusMap: subject.statusMap,
      async trigger(reference, action) {
        const providerAction = { paid: 'pay', failed: 'fail', reversed: 'reverse', settled: 'settle' } as const;
        const reply = provider.simulate(reference, providerAction[action], undefined);
        if (reply.status !== 200) throw new Error(`provider refused ${action}: ${JSON.stringify(reply.body)}`);
        if (action === 'settled') return null;
        return receiver.delivered(() => providers.dispatchDue(), `the provider sent no notification for ${action}`);
      },
      hangNextCreate() {
        provider.faults = { create: { mode: 'timeout', remaining: 1 } };
      },
      chargeCount: () => provider.chargeCount,
      logs: logs.text,
      secrets: [credentials.apiKey, credentials.webhookSecret],
      foreignSecret: sandboxCredentials('another-secret-another-secret-0001', subject.connector).webhookSecret,
      signatureHeader: subject.header,
      sign: (secret, body, at) => timestampedSignatureHeader(secret, body, at),
      async close() {
        await server.close();
        await receiver.close();
      },
    };
    return harness;
  });
}
