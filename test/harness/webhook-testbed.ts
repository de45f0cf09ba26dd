import { Webhook } from 'standardwebhooks';
import { createDispatcher, type Dispatcher, type DispatcherOptions } from '../../src/jobs/webhook-dispatcher.ts';
import { ManualClock } from '../../src/lib/clock.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { Allowlist } from '../../src/lib/net/address-policy.ts';
import { createOutboundClient, type Resolver } from '../../src/lib/net/outbound-http.ts';
import { createSecretBox } from '../../src/lib/secret-box.ts';
import { insertEvent } from '../../src/modules/events/event-repo.ts';
import { DEFAULT_DISABLE_AFTER_MS } from '../../src/modules/webhooks/delivery-service.ts';
import { SECRET_BOX_PURPOSE } from '../../src/modules/webhooks/webhook-secrets.ts';
import { createTestApp, json, TEST_SECRET, type TestApp, type TestMerchant } from './test-app.ts';
import { type ReceivedRequest, type Receiver, startReceiver } from './webhook-receiver.ts';
import { eventObjectTemplate } from '../../src/catalogue/event-examples.ts';

/**
 * Everything a webhook test needs: the app on a test store with a manual clock, a loopback
 * receiver, and a dispatcher the test drives (`drain()`), with deterministic jitter.
 */
export interface WebhookTestbed {
  t: TestApp;
  clock: ManualClock;
  receiver: Receiver;
  dispatcher: Dispatcher;
  /** Options of another worker on the same store (its own HTTP client): to play a second, or dead, worker. */
  workerDeps(): DispatcherOptions;
  /** Drains, moves the clock to the next due attempt, drains again… until nothing is pending. */
  runUntilSettled(maxRounds?: number): Promise<void>;
  createEndpoint(body: Record<string, unknown>, key?: string): Promise<{ id: string; secret: string }>;
  /** Inserts an event the way every module does (insertEvent), for the sandbox of merchant `m`. */
  emit(
    type: string,
    o?: { m?: TestMerchant; objectId?: string; object?: Record<string, unknown>; version?: number },
  ): Promise<string>;
  close(): Promise<void>;
}

export interface TestbedOptions {
  timeoutMs?: number;
  connectTimeoutMs?: number;
  concurrency?: number;
  perTargetConcurrency?: number;
  leaseMs?: number;
  resolver?: Resolver;
  allowlist?: string[];
}

let objectCounter = 0;

export async function createWebhookTestbed(options: TestbedOptions = {}): Promise<WebhookTestbed> {
  const clock = new ManualClock(new Date());
  const allowlist = options.allowlist ?? ['127.0.0.1'];
  const t = await createTestApp({ clock, webhookAllowlist: allowlist });
  const receiver = await startReceiver();
  const timeoutMs = options.timeoutMs ?? 3_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? 1_000;
  const clients: ReturnType<typeof createOutboundClient>[] = [];
  const newClient = () => {
    const c = createOutboundClient({
      allowlist: new Allowlist(allowlist),
      ...(options.resolver === undefined ? {} : { resolver: options.resolver }),
      maxSocketsPerHost: 16,
      maxSockets: 64,
    });
    clients.push(c);
    return c;
  };
  const makeOptions = (): DispatcherOptions => ({
    store: t.testStore.store,
    clock,
    log: createLogger(process.env['TEST_LOG_LEVEL'] ?? 'silent'),
    secretBox: createSecretBox(TEST_SECRET, SECRET_BOX_PURPOSE),
    eventObjectTemplate,
    http: newClient(),
    random: () => 0.5, // no jitter: schedules are exact in tests
    timeoutMs,
    connectTimeoutMs,
    leaseMs: options.leaseMs ?? 60_000,
    disableAfterMs: DEFAULT_DISABLE_AFTER_MS,
    concurrency: options.concurrency ?? 8,
    perTargetConcurrency: options.perTargetConcurrency ?? 4,
    pollIntervalMs: 20,
  });
  const dispatcher = createDispatcher(makeOptions());
  return {
    t,
    clock,
    receiver,
    dispatcher,
    workerDeps: makeOptions,
    async runUntilSettled(maxRounds = 50) {
      for (let round = 0; round < maxRounds; round += 1) {
        await dispatcher.drain();
        const rows = await t.testStore.store.query<{ next: Date | null }>(
          "SELECT min(greatest(next_attempt_at, leased_until)) AS next FROM webhook_deliveries WHERE status = 'pending'",
        );
        const next = rows[0]?.next;
        if (next === null || next === undefined) return;
        if (next > clock.now()) clock.set(next);
      }
      throw new Error(`deliveries still pending after ${maxRounds} rounds`);
    },
    async createEndpoint(body, key) {
      const res = await t.call('POST', '/webhook_endpoint/create', { body, ...(key === undefined ? {} : { key }) });
      if (res.statusCode !== 201) throw new Error(`endpoint create failed: ${res.statusCode} ${res.body}`);
      const e = json(res);
      return { id: String(e['id']), secret: String(e['secret']) };
    },
    async emit(type, o = {}) {
      const m = o.m ?? t.a;
      objectCounter += 1;
      const objectId = o.objectId ?? `pay_TEST${String(objectCounter).padStart(22, '0')}`;
      return insertEvent(t.testStore.store, {
        merchantId: m.id,
        environment: 'sandbox',
        type,
        objectType: type.split('.')[0] ?? 'payment',
        objectId,
        objectVersion: o.version ?? 1,
        apiVersion: '2026-11-01',
        object: o.object ?? { id: objectId, object: type.split('.')[0], version: o.version ?? 1 },
        previousAttributes: {},
        now: clock.now(),
      });
    },
    async close() {
      await dispatcher.stop();
      for (const c of clients) c.close();
      await receiver.close();
      await t.close();
    },
  };
}

const header = (r: ReceivedRequest, name: string) => {
  const v = r.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

/**
 * True when `secret` signed this request, checked by the standardwebhooks library's own signer
 * (interop) at the request's timestamp, so it works with a clock moved days ahead.
 */
export function signedBy(secret: string, r: ReceivedRequest): boolean {
  const id = header(r, 'webhook-id') ?? '';
  const ts = Number(header(r, 'webhook-timestamp'));
  const expected = new Webhook(secret).sign(id, new Date(ts * 1000), r.body);
  return (header(r, 'webhook-signature') ?? '').split(' ').includes(expected);
}

export const eventIdOf = (r: ReceivedRequest) => header(r, 'webhook-id') ?? '';
