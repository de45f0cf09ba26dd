import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import {
  createOperationalSnapshot,
  type OperationalSnapshot,
  type OperationalSnapshotDeps,
} from '../../modules/operations/index.ts';

/**
 * Prometheus metrics at GET /metrics: request counts and latencies by route template (never by
 * raw URL, so ids do not explode the label space), the process's default metrics, and the
 * operational gauges the alerts of ops/prometheus/rules.yml need (docs/operations.md "Observe").
 * One registry per app, so tests can build several apps in one process.
 */
export function registerMetrics(app: FastifyInstance, ops: OperationalSnapshotDeps): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'tributary_http_requests_total',
    help: 'HTTP requests by route template, method and status code',
    labelNames: ['route', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'tributary_http_request_duration_seconds',
    help: 'HTTP request duration by route template and method',
    labelNames: ['route', 'method'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ route, method: request.method, status: String(reply.statusCode) });
    duration.observe({ route, method: request.method }, reply.elapsedTime / 1000);
  });
  const operational = operationalGauges(registry);
  const snapshot = createOperationalSnapshot(ops);
  app.get('/metrics', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    // One bounded read per scrape (cached, single-flight, with a deadline: see the snapshot), set
    // into the gauges before they are rendered.
    operational.set(await snapshot.read());
    return reply.type(registry.contentType).send(await registry.metrics());
  });
  return registry;
}

/** The gauges fed from the operational snapshot; label values are bounded sets (no ids). */
function operationalGauges(registry: Registry): { set(s: OperationalSnapshot): void } {
  const gauge = <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
    new Gauge<L>({ name, help, labelNames, registers: [registry] });
  const databaseUp = gauge('tributary_database_up', '1 when the database answered a trivial query within 1 s, 0 otherwise');
  const backlogAge = gauge(
    'tributary_webhook_backlog_oldest_age_seconds',
    'Age of the oldest webhook work waiting: stage="fanout" an event not yet fanned out, stage="delivery" a due delivery nobody is sending (0: none)',
    ['stage'] as const,
  );
  const due = gauge('tributary_webhook_deliveries_due', 'Webhook deliveries due and not being sent (counted up to 10000)');
  const endpointsEnabled = gauge('tributary_webhook_endpoints_enabled', 'Enabled webhook endpoints', ['environment'] as const);
  const endpointsFailing = gauge(
    'tributary_webhook_endpoints_failing',
    'Enabled webhook endpoints whose every attempt failed since their last success',
    ['environment'] as const,
  );
  const discrepancies = gauge(
    'tributary_reconciliation_discrepancies_open',
    'Non-matched lines (other than late) of the latest reconciliation of each window created in the last 7 days',
    ['environment'] as const,
  );
  const exceptions = gauge('tributary_settlement_exceptions_open', 'Settlement exceptions not yet resolved, by kind', [
    'kind',
  ] as const);
  const providerUp = gauge(
    'tributary_provider_up',
    "0 while this process's health tracker has the connector down (consecutive failed calls), 1 otherwise",
    ['connector'] as const,
  );
  const providerFailures = gauge(
    'tributary_provider_consecutive_failures',
    "Consecutive failed provider calls (timeouts, transport errors, 5xx) in this process's view",
    ['connector'] as const,
  );
  const diskFree = gauge(
    'tributary_embedded_store_disk_free_bytes',
    'Free bytes (for an unprivileged process) on the filesystem of DATA_DIR (embedded store only)',
  );
  const diskSize = gauge('tributary_embedded_store_disk_size_bytes', 'Size of the filesystem of DATA_DIR (embedded store only)');
  const dataDirBytes = gauge(
    'tributary_embedded_store_size_bytes',
    'Bytes used under DATA_DIR (embedded store only; measured every minute)',
  );
  const readFailures = new Counter({
    name: 'tributary_operational_metrics_read_failures_total',
    help: 'Reads of the domain gauges that failed or ran out of time (their gauges are then absent from that scrape)',
    registers: [registry],
  });
  let failuresSeen = 0;
  // A gauge without labels always renders a sample (0 after reset()), so "absent" means taking it
  // out of the registry until it has a value again.
  const present = (name: string, g: Gauge, on: boolean) => {
    const registered = registry.getSingleMetric(name) !== undefined;
    if (on && !registered) registry.registerMetric(g);
    if (!on && registered) registry.removeSingleMetric(name);
  };
  const labelledDomainGauges = [backlogAge, endpointsEnabled, endpointsFailing, discrepancies, exceptions];
  return {
    set(s) {
      databaseUp.set(s.databaseUp ? 1 : 0);
      // Absent rather than stale when the read did not complete: a stale 0 would hide a backlog.
      for (const g of labelledDomainGauges) g.reset();
      present('tributary_webhook_deliveries_due', due, s.domain !== null);
      if (s.domain !== null) {
        const d = s.domain;
        backlogAge.set({ stage: 'fanout' }, d.webhookFanoutOldestAgeSeconds);
        backlogAge.set({ stage: 'delivery' }, d.webhookDeliveryOldestAgeSeconds);
        due.set(d.webhookDeliveriesDue);
        for (const [environment, e] of Object.entries(d.webhookEndpoints)) {
          endpointsEnabled.set({ environment }, e.enabled);
          endpointsFailing.set({ environment }, e.failing);
        }
        for (const [environment, n] of Object.entries(d.reconciliationDiscrepanciesOpen)) discrepancies.set({ environment }, n);
        for (const [kind, n] of Object.entries(d.settlementExceptionsOpen)) exceptions.set({ kind }, n);
      }
      providerUp.reset();
      providerFailures.reset();
      for (const p of s.providers) {
        providerUp.set({ connector: p.connector }, p.up ? 1 : 0);
        providerFailures.set({ connector: p.connector }, p.consecutiveFailures);
      }
      const store = s.embeddedStore;
      present('tributary_embedded_store_disk_free_bytes', diskFree, store !== null);
      present('tributary_embedded_store_disk_size_bytes', diskSize, store !== null);
      present('tributary_embedded_store_size_bytes', dataDirBytes, store !== null && store.dataDirBytes !== null);
      if (store !== null) {
        diskFree.set(store.diskFreeBytes);
        diskSize.set(store.diskSizeBytes);
        if (store.dataDirBytes !== null) dataDirBytes.set(store.dataDirBytes);
      }
      if (s.readFailures > failuresSeen) readFailures.inc(s.readFailures - failuresSeen);
      failuresSeen = s.readFailures;
    },
  };
}
