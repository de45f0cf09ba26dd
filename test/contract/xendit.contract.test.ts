import type { Connector, InboundNotification } from '../../src/connectors/core/connector.ts';
import {
  XENDIT_BANK_STATUS_MAP,
  XENDIT_COUNTER_STATUS_MAP,
  XENDIT_EWALLET_STATUS_MAP,
} from '../../src/connectors/xendit/transformers.ts';
import { createXenditConnectors } from '../../src/connectors/xendit/xendit-connectors.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { captureLogs } from '../harness/log-capture.ts';
import { startXenditSimulator, type XenditSimulator } from '../simulators/xendit/xendit-simulator.ts';
import { connectorContract, type ContractHarness } from './connector-contract.ts';

/**
 * The contract suite for the three Xendit connectors, against the loopback Xendit simulator
 * (test/simulators/xendit). Callbacks carry a static token (`notificationScheme: 'token'`), so the
 * connectors declare `notificationTrust: 'query'`; VAs and payment codes do not echo our metadata.
 */
const SECRET_KEY = 'xnd_development_contractContractContract0001';
const CALLBACK_TOKEN = 'cbtoken-contract-0001-abcdefghijklmnop';

const SUBJECTS = [
  { connector: 'xendit_bank', statusMap: XENDIT_BANK_STATUS_MAP, amountMinor: 15_000_000n, echoesOwner: false },
  { connector: 'xendit_ewallet', statusMap: XENDIT_EWALLET_STATUS_MAP, amountMinor: 5_000_000n, echoesOwner: true },
  { connector: 'xendit_counter', statusMap: XENDIT_COUNTER_STATUS_MAP, amountMinor: 2_500_000n, echoesOwner: false },
] as const;

/** The test-mode simulate-payment endpoints, called over HTTP as a tester would. */
async function simulatePayment(sim: XenditSimulator, connector: string, reference: string): Promise<void> {
  const auth = `Basic ${Buffer.from(`${SECRET_KEY}:`).toString('base64')}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${sim.url}${path}`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`simulate ${path}: ${res.status} ${await res.text()}`);
  };
  if (connector === 'xendit_bank') {
    const va = sim.vas.get(reference);
    if (va === undefined) throw new Error(`no VA ${reference}`);
    await post(`/callback_virtual_accounts/external_id=${encodeURIComponent(va.external_id)}/simulate_payment`, {
      amount: va.expected_amount,
    });
  } else if (connector === 'xendit_counter') {
    const code = sim.codes.get(reference);
    if (code === undefined) throw new Error(`no code ${reference}`);
    await post('/fixed_payment_code/simulate_payment', {
      retail_outlet_name: code.retail_outlet_name,
      payment_code: code.payment_code,
      transfer_amount: code.expected_amount,
    });
  } else {
    sim.payEwallet(reference);
  }
}

for (const subject of SUBJECTS) {
  connectorContract(subject.connector, async () => {
    const clock = new ManualClock(new Date('2026-11-21T10:00:00Z'));
    const logs = captureLogs();
    const sim = await startXenditSimulator({ secretKey: SECRET_KEY, callbackToken: CALLBACK_TOKEN, now: () => clock.now() });
    const connectors = createXenditConnectors({
      baseUrl: sim.url,
      secretKey: SECRET_KEY,
      callbackTokens: ['cbtoken-previous-0000', CALLBACK_TOKEN],
      payerReturnUrl: (paymentId) => `http://127.0.0.1:8080/pay/${paymentId}`,
      log: logs.log,
      http: { retryBackoffMs: 0, perTryTimeoutMs: 1_000 },
    });
    const connector = connectors.find((c) => c.capabilities.connector === subject.connector) as Connector;
    const lastCallback = (before: number): InboundNotification => {
      const sent = sim.sentCallbacks[sim.sentCallbacks.length - 1];
      if (sim.sentCallbacks.length === before || sent === undefined) throw new Error('the simulator sent no callback');
      return { rawBody: sent.rawBody, headers: sent.headers };
    };

    const harness: ContractHarness & { close(): Promise<void> } = {
      connector,
      clock,
      currency: 'IDR' as CurrencyCode,
      amountMinor: subject.amountMinor,
      statusMap: subject.statusMap,
      notificationScheme: 'token',
      echoesOwner: subject.echoesOwner,
      async trigger(reference, action) {
        const before = sim.sentCallbacks.length;
        switch (action) {
          case 'paid':
            await simulatePayment(sim, subject.connector, reference);
            return lastCallback(before);
          case 'failed':
            if (subject.connector !== 'xendit_ewallet') throw new Error('VAs and payment codes do not fail');
            sim.failEwallet(reference, 'ACCOUNT_ACCESS_BLOCKED');
            return lastCallback(before);
          case 'reversed':
            if (subject.connector === 'xendit_ewallet') {
              sim.voidEwallet(reference);
              return lastCallback(before);
            }
            sim.reversePayment(reference); // Xendit sends no callback for it
            return null;
          case 'settled':
            sim.settle(reference);
            return null;
        }
      },
      hangNextCreate: () => sim.hangNext(1, (method) => method === 'POST'),
      chargeCount: () => sim.chargeCount(),
      logs: logs.text,
      secrets: [SECRET_KEY, CALLBACK_TOKEN],
      foreignSecret: 'cbtoken-of-another-account-0002',
      signatureHeader: 'x-callback-token',
      sign: (secret) => secret,
      close: () => sim.close(),
    };
    return harness;
  });
}
