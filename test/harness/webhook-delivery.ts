import assert from 'node:assert/strict';
import { createDispatcher, type Dispatcher } from '../../src/jobs/webhook-dispatcher.ts';
import type { Clock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { Allowlist } from '../../src/lib/net/address-policy.ts';
import { createOutboundClient } from '../../src/lib/net/outbound-http.ts';
import { createSecretBox } from '../../src/lib/secret-box.ts';
import { DEFAULT_DISABLE_AFTER_MS } from '../../src/modules/webhooks/delivery-service.ts';
import { SECRET_BOX_PURPOSE } from '../../src/modules/webhooks/webhook-secrets.ts';
import { json, TEST_SECRET, type TestApp } from './test-app.ts';
import { type Receiver, startReceiver } from './webhook-receiver.ts';
import { eventObjectTemplate } from '../../src/catalogue/event-examples.ts';

/**
 * Merchant webhooks for an end-to-end test of an app already running: a loopback receiver that
 * merchant `a` registers as its production endpoint (at `path`), and a dispatcher the test drains,
 * with no jitter.
 */
export interface WebhookDelivery {
  receiver: Receiver;
  dispatcher: Dispatcher;
  /** The endpoint's signing secret, to check what the receiver got. */
  endpointSecret: string;
  close(): Promise<void>;
}

export async function startWebhookDelivery(t: TestApp, clock: Clock, path: string): Promise<WebhookDelivery> {
  const receiver = await startReceiver();
  const endpoint = await t.call('POST', '/webhook_endpoint/create', {
    key: t.a.productionKey,
    body: { url: receiver.url(path) },
  });
  assert.equal(endpoint.statusCode, 201, endpoint.body);
  const http = createOutboundClient({ allowlist: new Allowlist(['127.0.0.1']), maxSocketsPerHost: 8, maxSockets: 16 });
  const dispatcher = createDispatcher({
    store: t.testStore.store,
    clock,
    log: createLogger(process.env['TEST_LOG_LEVEL'] ?? 'silent'),
    secretBox: createSecretBox(TEST_SECRET, SECRET_BOX_PURPOSE),
    eventObjectTemplate,
    http,
    random: () => 0.5,
    timeoutMs: 3_000,
    connectTimeoutMs: 1_000,
    leaseMs: 60_000,
    disableAfterMs: DEFAULT_DISABLE_AFTER_MS,
    concurrency: 4,
    perTargetConcurrency: 4,
    pollIntervalMs: 20,
  });
  return {
    receiver,
    dispatcher,
    endpointSecret: String(json(endpoint)['secret']),
    async close() {
      await dispatcher.stop();
      http.close();
      await receiver.close();
    },
  };
}
