import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { Store } from '../../src/db/store.ts';
import { newId } from '../../src/lib/ids.ts';
import { createOperationalSnapshot, type OperationalSnapshotDeps } from '../../src/modules/operations/index.ts';
import { recordException } from '../../src/modules/settlement/settlement-exception-repo.ts';
import { insertDeliveries } from '../../src/modules/webhooks/delivery-repo.ts';
import { noteEndpointFailure } from '../../src/modules/webhooks/endpoint-repo.ts';
import { appForSuite, json, quickStart } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * The operational gauges of /metrics (docs/operations.md "Observe"): what the alerts of
 * ops/prometheus/rules.yml read. Each figure is driven from nothing to something here, and the
 * bounds of a scrape (absent figures when the database is down or slow) are checked with a store
 * that misbehaves on purpose.
 */

/** `name{labels} value` lines of the Prometheus text format → value by series. */
function samples(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

describe(`operational metrics (${TEST_STORE})`, () => {
  const ctx = appForSuite({ settlementDelayMs: null });
  const snapshotOf = (overrides: Partial<OperationalSnapshotDeps> = {}) =>
    createOperationalSnapshot({
      store: ctx.t.testStore.store,
      clock: ctx.clock,
      connectors: ctx.t.connectors,
      health: ctx.t.health,
      cacheMs: 0,
      ...overrides,
    });

  it('GET /metrics has every operational gauge, with bounded labels', async () => {
    const res = await ctx.t.call('GET', '/metrics', { key: null });
    assert.equal(res.statusCode, 200);
    const m = samples(res.body);
    assert.equal(m.get('tributary_database_up'), 1);
    for (const series of [
      'tributary_webhook_backlog_oldest_age_seconds{stage="fanout"}',
      'tributary_webhook_backlog_oldest_age_seconds{stage="delivery"}',
      'tributary_webhook_deliveries_due',
      'tributary_webhook_endpoints_enabled{environment="production"}',
      'tributary_webhook_endpoints_failing{environment="sandbox"}',
      'tributary_reconciliation_discrepancies_open{environment="production"}',
      'tributary_settlement_exceptions_open{kind="unknown_reference"}',
      'tributary_provider_up{connector="sandbox_bank"}',
      'tributary_provider_consecutive_failures{connector="sandbox_ewallet"}',
    ]) {
      assert.ok(m.has(series), `${series} is exported`);
    }
    // The test app runs on an in-memory or PostgreSQL store: no DATA_DIR, no disk gauges.
    assert.ok(![...m.keys()].some((k) => k.startsWith('tributary_embedded_store_')));
    assert.ok(![...m.keys()].some((k) => /(pay|mer|we|evt)_[0-9A-Z]{26}/.test(k)), 'no id in any label');
  });

  it('counts the webhook backlog, failing endpoints, open exceptions and down providers', async () => {
    const store = ctx.t.testStore.store;
    const before = await snapshotOf().read();
    assert.ok(before.domain !== null);

    // An event waits for fan-out (no dispatcher runs in the test app) while time passes.
    const created = await ctx.t.call('POST', '/payment/create', { key: ctx.t.a.sandboxKey, body: quickStart() });
    assert.equal(created.statusCode, 201, created.body);
    ctx.clock.advance(90_000);
    const queued = await snapshotOf().read();
    assert.ok(queued.domain !== null);
    assert.ok(queued.domain.webhookFanoutOldestAgeSeconds >= 90, `fan-out age ${queued.domain.webhookFanoutOldestAgeSeconds}`);

    // An endpoint that keeps failing, with a delivery due for 2 minutes.
    const endpoint = await ctx.t.call('POST', '/webhook_endpoint/create', {
      key: ctx.t.a.productionKey,
      body: { url: 'https://shop.example.com/hooks' },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);
    const endpointId = String(json(endpoint)['id']);
    const tenant = { merchantId: ctx.t.a.id, environment: 'production' as const };
    await noteEndpointFailure(store, { ...tenant, id: endpointId }, ctx.clock.now());
    const [event] = await store.query<{ id: string }>('SELECT id FROM events ORDER BY id LIMIT 1');
    assert.ok(event !== undefined);
    await insertDeliveries(
      store,
      [
        {
          id: newId('delivery'),
          eventId: event.id,
          ...tenant,
          endpointId,
          callbackUrl: null,
          targetKey: endpointId,
          trigger: 'event',
        },
      ],
      ctx.clock.now(),
    );
    ctx.clock.advance(120_000);

    // A settlement line the ingestion refused.
    await recordException(store, {
      connector: 'sandbox_bank',
      providerReference: `chg_${Date.now()}`,
      attemptId: 'att_metrics',
      settledAt: ctx.clock.now(),
      kind: 'amount_mismatch',
      merchantId: ctx.t.a.id,
      environment: 'production',
      paymentId: null,
      grossMinor: 1000n,
      feeMinor: 0n,
      currency: 'IDR',
      detail: 'metrics test',
      now: ctx.clock.now(),
    });

    // Three failed calls in a row: the routing health tracker has the connector down.
    for (let i = 0; i < 3; i += 1) ctx.t.health.record('sandbox_ewallet', false, ctx.clock.now());

    const after = await snapshotOf().read();
    assert.ok(after.domain !== null);
    const d = after.domain;
    assert.ok(d.webhookDeliveryOldestAgeSeconds >= 120, `delivery age ${d.webhookDeliveryOldestAgeSeconds}`);
    assert.equal(d.webhookDeliveriesDue, before.domain.webhookDeliveriesDue + 1);
    assert.equal(d.webhookEndpoints.production.enabled, before.domain.webhookEndpoints.production.enabled + 1);
    assert.equal(d.webhookEndpoints.production.failing, before.domain.webhookEndpoints.production.failing + 1);
    assert.equal(d.settlementExceptionsOpen.amount_mismatch, before.domain.settlementExceptionsOpen.amount_mismatch + 1);
    assert.deepEqual(
      after.providers.filter((p) => !p.up).map((p) => [p.connector, p.consecutiveFailures]),
      [['sandbox_ewallet', 3]],
    );
    // The same figures reach /metrics (the app's snapshot caches for a few seconds of real time,
    // and this is its first read since the changes only if no other test scraped: read, then check).
    const res = await ctx.t.call('GET', '/metrics', { key: null });
    const m = samples(res.body);
    assert.equal(m.get('tributary_provider_up{connector="sandbox_ewallet"}'), 0);
    assert.equal(m.get('tributary_provider_up{connector="sandbox_bank"}'), 1);
    ctx.t.health.record('sandbox_ewallet', true, ctx.clock.now());
  });

  it('a database that does not answer: database_up 0 and the domain figures absent, within the deadline', async () => {
    const real = ctx.t.testStore.store;
    const down: Store = { ...real, kind: real.kind, ping: () => Promise.reject(new Error('connection refused')) };
    const s = await snapshotOf({ store: down }).read();
    assert.equal(s.databaseUp, false);
    assert.equal(s.domain, null);

    // Answers the ping, then hangs: the scrape gives up after readTimeoutMs with what it knows.
    let release: () => void = () => undefined;
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow: Store = {
      ...real,
      kind: real.kind,
      ping: (ms) => real.ping(ms),
      transaction: async <T>() => {
        await hung;
        throw new Error('gave up');
        return undefined as T;
      },
    };
    const snapshot = snapshotOf({ store: slow, readTimeoutMs: 200 });
    const started = performance.now();
    const [first, second] = await Promise.all([snapshot.read(), snapshot.read()]);
    assert.ok(performance.now() - started < 5_000, 'answered by the deadline');
    for (const r of [first, second]) {
      assert.equal(r.databaseUp, true);
      assert.equal(r.domain, null);
      assert.ok(r.readFailures >= 1);
    }
    release();
  });

  it('the embedded store reports the disk of DATA_DIR', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tributary-metrics-'));
    try {
      writeFileSync(join(dir, 'some-file'), Buffer.alloc(64 * 1024, 1));
      const s = await snapshotOf({ dataDir: dir }).read();
      assert.ok(s.embeddedStore !== null);
      assert.ok(s.embeddedStore.diskSizeBytes > 0);
      assert.ok(s.embeddedStore.diskFreeBytes > 0 && s.embeddedStore.diskFreeBytes <= s.embeddedStore.diskSizeBytes);
      assert.ok((s.embeddedStore.dataDirBytes ?? 0) >= 64 * 1024, `DATA_DIR bytes ${s.embeddedStore.dataDirBytes}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
