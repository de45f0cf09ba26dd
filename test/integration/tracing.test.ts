import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { type ProxyTracerProvider, trace } from '@opentelemetry/api';
import { loadConfig } from '../../src/config.ts';
import { tracedStore } from '../../src/db/traced-store.ts';
import { runTick } from '../../src/jobs/job-runner.ts';
import { startTracing, type Tracing, tracingEnabled } from '../../src/lib/tracing.ts';
import { SANDBOX_PROVIDERS_PREFIX } from '../../src/sandbox/sandbox-providers.ts';
import { captureLogs } from '../harness/log-capture.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from '../harness/otlp-receiver.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';
import { openTestStore, type TestStore } from '../harness/test-store.ts';
import { createWebhookTestbed } from '../harness/webhook-testbed.ts';
import { newSecret, startServer, tempDir } from '../reliability/harness/processes.ts';

// Tracing is process-wide (one global tracer provider): node:test runs each test file in its own
// process, and this file turns tracing on only after its "off" test, in that order.

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;

/** Every log line (JSON) of the captured logger. */
const lines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe('tracing', () => {
  let receiver: OtlpReceiver;
  before(async () => {
    receiver = await startOtlpReceiver();
  });
  after(() => receiver.close());

  describe('without OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    it('registers nothing: no-op tracer, no span processor, no header, nothing exported, no trace ids in logs', async () => {
      const config = loadConfig({});
      assert.equal(config.otlpEndpoint, undefined);
      assert.equal(await startTracing({ endpoint: config.otlpEndpoint }), undefined);
      assert.equal(tracingEnabled(), false);
      // The API's global provider still delegates to its no-op: no SDK provider, so no processor.
      const delegate = (trace.getTracerProvider() as ProxyTracerProvider).getDelegate();
      assert.equal('forceFlush' in delegate, false, 'an SDK tracer provider is registered');
      const probe = trace.getTracer('probe').startSpan('probe');
      assert.equal(probe.isRecording(), false);
      assert.equal(probe.spanContext().traceId, '0'.repeat(32));

      const logs = captureLogs();
      const t = await createTestApp({ log: logs.log });
      try {
        const res = await t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) });
        assert.equal(res.statusCode, 201, res.body);
        assert.equal(res.headers['traceresponse'], undefined);
        assert.equal(receiver.requests.length, 0);
        const logged = lines(logs.text());
        assert.ok(logged.length > 0, 'the debug logger wrote nothing');
        assert.equal(
          logged.some((l) => 'trace_id' in l),
          false,
        );
      } finally {
        await t.close();
      }
    });
  });

  describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
    let tracing: Tracing;
    let t: TestApp;
    let testStore: TestStore;
    const logs = captureLogs();
    /** `traceparent` of every request the sandbox providers received. */
    const providerTraceparents: string[] = [];

    before(async () => {
      const config = loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: `${receiver.url}/` });
      const started = await startTracing({ endpoint: config.otlpEndpoint });
      assert.ok(started !== undefined);
      tracing = started;
      // As runtime.ts does when tracing is on: the store with a span per transaction.
      testStore = await openTestStore();
      t = await createTestApp({ log: logs.log, testStore: { ...testStore, store: tracedStore(testStore.store) } });
      // The sandbox providers are served by the same app on loopback: see what reaches them.
      t.app.server.on('request', (req: IncomingMessage) => {
        if (req.url?.startsWith(SANDBOX_PROVIDERS_PREFIX) === true) providerTraceparents.push(String(req.headers.traceparent));
      });
    });
    after(async () => {
      await t.close();
      await testStore.close();
      await tracing.shutdown();
      assert.equal(tracingEnabled(), false);
    });

    const traceOf = async (traceId: string): Promise<ReceivedSpan[]> => {
      await tracing.forceFlush();
      return receiver.spans.filter((s) => s.traceId === traceId);
    };

    it('one create is one trace: the server span, its transactions, the provider call and the provider side', async () => {
      const res = await t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) });
      assert.equal(res.statusCode, 201, res.body);
      const requestId = String(res.headers['request-id']);
      const [, traceId, serverSpanId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(String(res.headers['traceresponse'])) ?? [];
      assert.ok(traceId !== undefined && serverSpanId !== undefined, `traceresponse: ${String(res.headers['traceresponse'])}`);

      const spans = await traceOf(traceId);
      // Nothing else ran since tracing started: every exported span is this create's.
      assert.deepEqual([...new Set(receiver.spans.map((s) => s.traceId))], [traceId]);
      assert.ok(receiver.requests.every((r) => r.path === '/v1/traces' && r.contentType?.startsWith('application/json')));
      const byId = new Map(spans.map((s) => [s.spanId, s]));

      // The root: the HTTP server span, named by route template.
      const roots = spans.filter((s) => s.parentSpanId === '');
      assert.deepEqual(
        roots.map((s) => s.name),
        ['POST /payment/create'],
      );
      const root = roots[0] as ReceivedSpan;
      assert.equal(root.spanId, serverSpanId);
      assert.equal(root.kind, SERVER);
      assert.equal(root.attributes['http.response.status_code'], 201);
      assert.equal(root.attributes['http.route'], '/payment/create');
      assert.equal(root.attributes['http.request.method'], 'POST');
      assert.equal(root.attributes['tributary.request_id'], requestId);
      assert.equal(root.attributes['tributary.merchant_id'], t.a.id);
      assert.equal(root.resource['service.name'], 'tributary');

      // Every other span hangs off the root, through its parents.
      for (const s of spans) {
        let cursor: ReceivedSpan | undefined = s;
        for (let depth = 0; cursor !== undefined && cursor !== root && depth < 10; depth += 1)
          cursor = byId.get(cursor.parentSpanId);
        assert.equal(cursor, root, `${s.name} is not under the root`);
      }

      // The database transactions of the create (persist, then record the provider's answer).
      // The database work of the create: its statements run on the store each are one implicit
      // transaction (`db.query`); explicit transactions are `db.transaction`. Never SQL text.
      const database = spans.filter((s) => s.name === 'db.query' || s.name === 'db.transaction');
      assert.ok(database.length >= 2, `database spans: ${database.length}`);
      for (const db of database) {
        assert.equal(db.parentSpanId, root.spanId);
        assert.equal(db.kind, CLIENT);
        assert.equal(db.attributes['db.system.name'], 'postgresql');
        if (db.name === 'db.query') assert.match(String(db.attributes['db.operation.name']), /^[A-Z]+$/);
        else assert.ok(Number(db.attributes['tributary.db.statements']) >= 1);
        assert.equal(
          Object.keys(db.attributes).some((k) => k.includes('statement') && k !== 'tributary.db.statements'),
          false,
        );
      }

      // The provider call: a client span under the root, and the provider's own server span under it.
      const calls = spans.filter((s) => s.name === 'POST sandbox_bank');
      assert.equal(calls.length, 1, JSON.stringify(spans.map((s) => s.name)));
      const call = calls[0] as ReceivedSpan;
      assert.equal(call.kind, CLIENT);
      assert.equal(call.parentSpanId, root.spanId);
      assert.equal(call.attributes['http.response.status_code'], 201);
      assert.equal(call.attributes['tributary.connector'], 'sandbox_bank');
      assert.equal(call.attributes['server.address'], '127.0.0.1');
      const providerSide = spans.filter((s) => s.parentSpanId === call.spanId);
      assert.equal(providerSide.length, 1);
      assert.equal(providerSide[0]?.kind, SERVER);
      assert.match(String(providerSide[0]?.name), new RegExp(`^POST ${SANDBOX_PROVIDERS_PREFIX}/`));
      // Persist, then call the provider, then record its answer: database work on both sides.
      // The SDK anchors each span at Date.now() (whole milliseconds) and times it with
      // performance.now() from there, so two spans' clocks differ by up to 1 ms: the order of
      // spans closer than that is not in the data (a transaction starting 0.3 ms after the call
      // ended can be stamped 0.7 ms before its end). The loopback provider call itself takes
      // milliseconds, so a transaction on the wrong side still fails this.
      const SPAN_CLOCK_SLACK_NS = 1_000_000n;
      const persisted = database.filter((db) => db.endNs <= call.startNs + SPAN_CLOCK_SLACK_NS);
      assert.ok(persisted.length > 0, 'nothing persisted before the provider call');
      assert.ok(
        database.some((db) => db.startNs + SPAN_CLOCK_SLACK_NS >= call.endNs && !persisted.includes(db)),
        'nothing recorded after the provider call',
      );

      // The provider received the trace context: this trace, the client span as parent.
      assert.deepEqual(providerTraceparents, [`00-${traceId}-${call.spanId}-01`]);

      // The log lines of the request carry its trace id next to its request id (the mapping).
      const logged = lines(logs.text());
      const ofRequest = logged.filter((l) => l['request_id'] === requestId);
      assert.ok(ofRequest.length >= 1, 'no log line of the request');
      for (const l of ofRequest) assert.equal(l['trace_id'], traceId, JSON.stringify(l));
      const providerLine = logged.find((l) => l['msg'] === 'provider call' && l['trace_id'] === traceId);
      assert.ok(providerLine !== undefined, 'the provider call was not logged with the trace id');

      // Nothing secret or personal in what was exported.
      const exported = receiver.bodies.join('\n');
      for (const needle of [t.a.sandboxKey, 'sk_test_', 'sbx_sk_', 'payer@example.com', 'Bearer']) {
        assert.equal(exported.includes(needle), false, `${needle} was exported`);
      }
    });

    it('continues the trace of an incoming traceparent, named by the route template', async () => {
      const created = json(await t.call('POST', '/payment/create', { body: quickStart({ channel: 'bank' }) }));
      const callerTrace = 'a1'.repeat(16);
      const callerSpan = 'b2'.repeat(8);
      const res = await t.call('GET', `/payment/${String(created['id'])}`, {
        headers: { traceparent: `00-${callerTrace}-${callerSpan}-01` },
      });
      assert.equal(res.statusCode, 200);
      const spans = await traceOf(callerTrace);
      const server = spans.find((s) => s.kind === SERVER);
      assert.equal(server?.name, 'GET /payment/:id');
      assert.equal(server?.parentSpanId, callerSpan);
      assert.equal(server?.attributes['http.response.status_code'], 200);
    });

    it('a 404 is not an error span, and an unmatched route is named by its method only', async () => {
      const res = await t.call('GET', '/no/such/route/pay_123');
      assert.equal(res.statusCode, 404);
      const [, traceId] = /^00-([0-9a-f]{32})-/.exec(String(res.headers['traceresponse'])) ?? [];
      const spans = await traceOf(String(traceId));
      assert.equal(spans.length, 1);
      assert.equal(spans[0]?.name, 'GET');
      assert.equal(spans[0]?.attributes['http.route'], undefined);
      assert.equal(spans[0]?.attributes['http.response.status_code'], 404);
      assert.notEqual(spans[0]?.statusCode, ERROR);
    });

    it('a job run is a trace when it handled something, and dropped when it idled', async () => {
      const store = tracedStore(testStore.store);
      const tick = (name: string, handled: number) =>
        runTick(
          {
            name,
            batchSize: 10,
            run: async () => {
              await store.transaction((tx) => tx.query('SELECT 1'));
              return handled;
            },
          },
          logs.log,
        );
      await tick('test-idle', 0);
      await tick('test-busy', 3);
      await tracing.forceFlush();
      assert.equal(
        receiver.spans.some((s) => s.name === 'job test-idle' || s.attributes['tributary.job.name'] === 'test-idle'),
        false,
      );
      const job = receiver.spans.find((s) => s.name === 'job test-busy');
      assert.ok(job !== undefined, 'the busy run was not exported');
      assert.equal(job.parentSpanId, '');
      assert.equal(job.attributes['tributary.job.handled'], 3);
      const children = receiver.spans.filter((s) => s.parentSpanId === job.spanId);
      assert.deepEqual(
        children.map((s) => s.name),
        ['db.transaction'],
      );
    });

    it('a webhook delivery attempt is a client span, and the endpoint receives its traceparent', async () => {
      const bed = await createWebhookTestbed();
      try {
        await bed.createEndpoint({ url: bed.receiver.url('/hook?token=url-secret') });
        const eventId = await bed.emit('payment.succeeded');
        await bed.runUntilSettled();
        await tracing.forceFlush();
        const deliveries = receiver.spans.filter(
          (s) => s.name === 'webhook.deliver' && s.attributes['tributary.event_id'] === eventId,
        );
        assert.equal(deliveries.length, 1);
        const d = deliveries[0] as ReceivedSpan;
        assert.equal(d.kind, CLIENT);
        assert.equal(d.parentSpanId, '');
        assert.equal(d.attributes['http.response.status_code'], 200);
        assert.equal(d.attributes['tributary.webhook.outcome'], 'succeeded');
        assert.equal(d.attributes['tributary.delivery.attempt'], 1);
        assert.equal(d.attributes['server.address'], '127.0.0.1');
        const exported = receiver.bodies.join('\n');
        assert.equal(exported.includes('url-secret'), false, 'the endpoint URL was exported');
        assert.equal(exported.includes('whsec_'), false);
        const received = bed.receiver.requests.filter((r) => r.headers['webhook-id'] === eventId);
        assert.equal(received.length, 1);
        assert.equal(received[0]?.headers['traceparent'], `00-${d.traceId}-${d.spanId}-01`);
      } finally {
        await bed.close();
      }
    });
  });

  describe('the server process', () => {
    it('traces with OTEL_EXPORTER_OTLP_ENDPOINT, its store included, and exports the last spans on SIGTERM', async () => {
      const dir = tempDir('tracing');
      const target = { kind: 'embedded' as const, dataDir: dir.path };
      const secret = newSecret();
      try {
        const server = await startServer({ target, secret, env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } });
        let traceId: string | undefined;
        try {
          // A fresh embedded store's first start creates a merchant and prints its keys.
          const key = /sandbox\s+(sk_test_\S+)/.exec(server.output())?.[1];
          assert.ok(key !== undefined, server.output());
          const res = await fetch(`${server.url}/payment/create`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify(quickStart({ channel: 'bank' })),
          });
          assert.equal(res.status, 201, await res.text());
          traceId = /^00-([0-9a-f]{32})-/.exec(res.headers.get('traceresponse') ?? '')?.[1];
          assert.ok(traceId !== undefined);
        } finally {
          // At once: the batch would wait seconds more, so what arrives was flushed by the shutdown.
          assert.equal((await server.terminate()).code, 0, server.output());
        }
        const spans = receiver.spans.filter((s) => s.traceId === traceId);
        const root = spans.find((s) => s.parentSpanId === '');
        assert.equal(root?.name, 'POST /payment/create');
        assert.equal(root?.attributes['http.response.status_code'], 201);
        // runtime.ts wrapped the store: the create's database work is in the trace.
        assert.ok(spans.some((s) => s.name === 'db.query' && s.parentSpanId === root?.spanId));
        assert.ok(spans.some((s) => s.name === 'POST sandbox_bank' && s.parentSpanId === root?.spanId));
      } finally {
        dir.remove();
      }
    });
  });
});
