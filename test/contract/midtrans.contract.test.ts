import type { Connector, InboundNotification } from '../../src/connectors/core/connector.ts';
import { createMidtransConnectors } from '../../src/connectors/midtrans/midtrans.connector.ts';
import { MIDTRANS_STATUS_MAP } from '../../src/connectors/midtrans/transformers.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { startCallbackReceiver } from '../harness/callback-receiver.ts';
import { captureLogs } from '../harness/log-capture.ts';
import { startMidtransSimulator } from '../simulators/midtrans/midtrans-simulator.ts';
import { connectorContract, type ContractHarness } from './connector-contract.ts';

/**
 * The contract suite for the two Midtrans connectors, against the Midtrans simulator on loopback,
 * with a loopback receiver standing in for Tributary's callback endpoint. Midtrans signs a
 * notification in its body (`signature_key` over order_id, status_code and gross_amount, no
 * timestamp): scheme `body`, and the connectors declare `notificationTrust: 'query'`.
 */
const SERVER_KEY = 'SB-Mid-server-contractContractContract01';
const FOREIGN_KEY = 'SB-Mid-server-someoneElseSomeoneElse99';

const SUBJECTS = [
  { connector: 'midtrans_bank', statusMap: MIDTRANS_STATUS_MAP, amountMinor: 15_000_000n, httpStatus: 'mirror' },
  { connector: 'midtrans_counter', statusMap: MIDTRANS_STATUS_MAP, amountMinor: 5_000_000n, httpStatus: 'mirror' },
  // Midtrans may answer an error with HTTP 200 and the code only in status_code: the same suite holds.
  { connector: 'midtrans_bank', statusMap: MIDTRANS_STATUS_MAP, amountMinor: 15_000_000n, httpStatus: 'always200' },
] as const;

const withBody = (n: InboundNotification, change: (body: Record<string, unknown>) => void): InboundNotification => {
  const body = JSON.parse(n.rawBody) as Record<string, unknown>;
  change(body);
  return { rawBody: JSON.stringify(body), headers: n.headers };
};

for (const subject of SUBJECTS) {
  connectorContract(`${subject.connector} (HTTP status: ${subject.httpStatus})`, async () => {
    const clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
    const logs = captureLogs();
    const receiver = await startCallbackReceiver();
    const sim = await startMidtransSimulator({ serverKey: SERVER_KEY, now: () => clock.now(), httpStatus: subject.httpStatus });
    const connectors = createMidtransConnectors({
      baseUrl: sim.origin,
      serverKey: SERVER_KEY,
      log: logs.log,
      notificationUrl: (name) => receiver.url(`/provider/${name}/callback`),
      http: { retryBackoffMs: 0, perTryTimeoutMs: 1_000 },
    });
    const connector = connectors.find((c) => c.capabilities.connector === subject.connector) as Connector;

    const harness: ContractHarness & { close(): Promise<void> } = {
      connector,
      clock,
      currency: 'IDR' as CurrencyCode,
      amountMinor: subject.amountMinor,
      statusMap: subject.statusMap,
      notificationScheme: 'body',
      async trigger(reference, action) {
        if (action === 'settled') throw new Error('Midtrans has no settlement report: the suite does not ask for one');
        const act = {
          paid: () => sim.pay(reference),
          failed: () => sim.deny(reference),
          reversed: () => sim.chargeback(reference),
        };
        act[action]();
        return receiver.delivered(() => sim.deliverNotifications(), `Midtrans sent no notification for ${action}`);
      },
      hangNextCreate: () => sim.hangNext(),
      chargeCount: () => sim.chargeCount,
      logs: logs.text,
      secrets: [SERVER_KEY, Buffer.from(`${SERVER_KEY}:`).toString('base64')],
      foreignSecret: FOREIGN_KEY,
      // The signature travels in the body, not a header: the hooks below rewrite the body.
      signatureHeader: 'signature_key',
      sign: () => '',
      // gross_amount is one of the signed fields; transaction_time, for one, is not.
      tamper: (n) =>
        withBody(n, (b) => (b['gross_amount'] = String(b['gross_amount']).replace(/^(\d)/, (d) => String((Number(d) % 9) + 1)))),
      resign: (n, secret) =>
        withBody(n, (b) => {
          b['signature_key'] = sim.signature(String(b['order_id']), String(b['status_code']), String(b['gross_amount']), secret);
        }),
      unsign: (n) => withBody(n, (b) => delete b['signature_key']),
      async close() {
        await sim.close();
        await receiver.close();
      },
    };
    return harness;
  });
}
