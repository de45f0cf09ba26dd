import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Store } from '../../db/store.ts';
import type { Environment } from '../../kernel/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { directoryBytes, filesystemSpace } from '../../lib/disk-usage.ts';
import type { Logger } from '../../lib/logger.ts';
import { countOpenDiscrepancies } from '../reconciliation/index.ts';
import type { ConnectorHealthTracker } from '../routing/index.ts';
import { countOpenSettlementExceptions, type ExceptionKind } from '../settlement/index.ts';
import { readWebhookBacklog, type WebhookBacklog } from '../webhooks/index.ts';

/**
 * What an operator's alerts need to know about this deployment (docs/operations.md "Observe"),
 * read when Prometheus scrapes /metrics. The HTTP layer turns it into gauges; the queries live in
 * their modules.
 *
 * A scrape must never make a struggling database worse, so a read is bounded three ways: it is
 * cached for `cacheMs` (several Prometheus servers, or a fast scrape interval, share one read);
 * only one read runs at a time (a scrape that arrives meanwhile waits for it instead of starting
 * another); and the database work has a server-side `statement_timeout` inside its transaction
 * plus a deadline on the whole read, after which the scrape answers without the domain figures
 * (absent, never stale: a stale 0 would hide a problem).
 */
export interface DomainFigures {
  /** Seconds the oldest event has waited for fan-out into deliveries (0: none waiting). */
  webhookFanoutOldestAgeSeconds: number;
  /** Seconds the oldest due, unleased delivery has waited past its due time (0: none). */
  webhookDeliveryOldestAgeSeconds: number;
  webhookDeliveriesDue: number;
  webhookEndpoints: WebhookBacklog['endpoints'];
  reconciliationDiscrepanciesOpen: Record<Environment, number>;
  settlementExceptionsOpen: Record<ExceptionKind, number>;
}

export interface ProviderFigures {
  connector: string;
  /** False while the in-process health tracker has the connector `down` (consecutive failures). */
  up: boolean;
  consecutiveFailures: number;
}

export interface EmbeddedStoreFigures {
  diskFreeBytes: number;
  diskSizeBytes: number;
  /** Bytes under DATA_DIR (null until first measured). */
  dataDirBytes: number | null;
}

export interface OperationalSnapshot {
  databaseUp: boolean;
  /** Null when the database is down or the read failed or ran out of time. */
  domain: DomainFigures | null;
  providers: ProviderFigures[];
  /** Null on PostgreSQL (DATABASE_URL), or when DATA_DIR could not be measured. */
  embeddedStore: EmbeddedStoreFigures | null;
  /** Reads of the domain figures that failed or timed out since the process started. */
  readFailures: number;
}

export interface OperationalSnapshotDeps {
  store: Store;
  clock: Clock;
  connectors: ConnectorRegistry;
  health?: ConnectorHealthTracker;
  /** The embedded store's DATA_DIR; absent on PostgreSQL. */
  dataDir?: string;
  log?: Logger;
  cacheMs?: number;
  pingTimeoutMs?: number;
  statementTimeoutMs?: number;
  /** The whole database read, ping included. */
  readTimeoutMs?: number;
  /** How often DATA_DIR is walked for its size (a few thousand files). */
  dataDirSizeEveryMs?: number;
  /** Monotonic milliseconds for the caches (not the domain clock, which tests stop). */
  monotonicMs?: () => number;
}

export interface OperationalSnapshotSource {
  read(): Promise<OperationalSnapshot>;
}

/** Open discrepancies are those of reconciliations created in the last week. */
const DISCREPANCY_WINDOW_MS = 7 * 86_400_000;

interface DatabaseFigures {
  databaseUp: boolean;
  domain: DomainFigures | null;
}

const ageSeconds = (now: Date, at: Date | null) => (at === null ? 0 : Math.max(0, (now.getTime() - at.getTime()) / 1000));

export function createOperationalSnapshot(deps: OperationalSnapshotDeps): OperationalSnapshotSource {
  const cacheMs = deps.cacheMs ?? 5_000;
  const pingTimeoutMs = deps.pingTimeoutMs ?? 1_000;
  const statementTimeoutMs = Math.floor(deps.statementTimeoutMs ?? 2_000);
  const readTimeoutMs = deps.readTimeoutMs ?? 3_000;
  const dataDirSizeEveryMs = deps.dataDirSizeEveryMs ?? 60_000;
  const monotonicMs = deps.monotonicMs ?? (() => performance.now());
  let cached: { atMs: number; value: DatabaseFigures } | undefined;
  /** The read running now, and whether its ping answered yet (a scrape that times out reports that). */
  let inflight: { figures: Promise<DatabaseFigures>; progress: { pinged: boolean | undefined } } | undefined;
  let readFailures = 0;
  let failing = false;
  let dataDirBytes: { atMs: number; bytes: number } | undefined;
  let dataDirWalk: Promise<void> | undefined;

  const noteFailure = (error: unknown) => {
    readFailures += 1;
    if (!failing) deps.log?.warn({ err: error }, 'operational metrics: reading the domain figures failed');
    failing = true;
  };

  async function readDomain(): Promise<DomainFigures> {
    const now = deps.clock.now();
    return deps.store.transaction(async (tx) => {
      // Transaction-scoped, so it also holds through a pooler in transaction mode (docs/scaling.md).
      await tx.query(`SET LOCAL statement_timeout = ${statementTimeoutMs}`);
      const backlog = await readWebhookBacklog(tx, now);
      const discrepancies = await countOpenDiscrepancies(tx, new Date(now.getTime() - DISCREPANCY_WINDOW_MS));
      const exceptions = await countOpenSettlementExceptions(tx);
      return {
        webhookFanoutOldestAgeSeconds: ageSeconds(now, backlog.oldestQueuedEventAt),
        webhookDeliveryOldestAgeSeconds: ageSeconds(now, backlog.oldestDueDeliveryAt),
        webhookDeliveriesDue: backlog.dueDeliveries,
        webhookEndpoints: backlog.endpoints,
        reconciliationDiscrepanciesOpen: discrepancies,
        settlementExceptionsOpen: exceptions,
      };
    });
  }

  /** Ping first: a database that does not answer a trivial query within a second is down for us. */
  async function readDatabase(progress: { pinged: boolean | undefined }): Promise<DatabaseFigures> {
    try {
      await deps.store.ping(pingTimeoutMs);
      progress.pinged = true;
    } catch {
      progress.pinged = false;
      return { databaseUp: false, domain: null };
    }
    try {
      const domain = await readDomain();
      if (failing) deps.log?.info('operational metrics: reading the domain figures works again');
      failing = false;
      return { databaseUp: true, domain };
    } catch (error) {
      noteFailure(error);
      return { databaseUp: true, domain: null };
    }
  }

  async function databaseFigures(): Promise<DatabaseFigures> {
    if (cached !== undefined && monotonicMs() - cached.atMs < cacheMs) return cached.value;
    if (inflight === undefined) {
      const progress: { pinged: boolean | undefined } = { pinged: undefined };
      const figures = readDatabase(progress).then((value) => {
        cached = { atMs: monotonicMs(), value };
        return value;
      });
      const started = { figures, progress };
      inflight = started;
      void figures.finally(() => {
        if (inflight === started) inflight = undefined;
      });
    }
    const { figures, progress } = inflight;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<DatabaseFigures>((resolve) => {
      timer = setTimeout(() => {
        noteFailure(new Error(`no answer within ${readTimeoutMs} ms`));
        // The read keeps running (and fills the cache when it ends); this scrape answers now.
        resolve({ databaseUp: progress.pinged === true, domain: null });
      }, readTimeoutMs);
    });
    try {
      return await Promise.race([figures, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  function providers(): ProviderFigures[] {
    const health = deps.health?.snapshot(deps.clock.now()) ?? {};
    return deps.connectors.all().map((c) => {
      const h = health[c.capabilities.connector];
      return {
        connector: c.capabilities.connector,
        up: h?.state !== 'down',
        consecutiveFailures: h?.consecutiveFailures ?? 0,
      };
    });
  }

  async function embeddedStore(dataDir: string): Promise<EmbeddedStoreFigures | null> {
    let space: { sizeBytes: number; freeBytes: number };
    try {
      space = await filesystemSpace(dataDir);
    } catch (error) {
      deps.log?.warn({ err: error, dataDir }, 'operational metrics: statfs of DATA_DIR failed');
      return null;
    }
    // The walk runs in the background at most every dataDirSizeEveryMs; scrapes show the last size.
    if (dataDirWalk === undefined && (dataDirBytes === undefined || monotonicMs() - dataDirBytes.atMs >= dataDirSizeEveryMs)) {
      dataDirWalk = directoryBytes(dataDir)
        .then((r) => {
          dataDirBytes = { atMs: monotonicMs(), bytes: r.bytes };
        })
        .catch(() => undefined)
        .finally(() => {
          dataDirWalk = undefined;
        });
      // The first scrape waits for it, so the figure is there from the start.
      if (dataDirBytes === undefined) await dataDirWalk;
    }
    return { diskFreeBytes: space.freeBytes, diskSizeBytes: space.sizeBytes, dataDirBytes: dataDirBytes?.bytes ?? null };
  }

  return {
    async read() {
      const [database, embedded] = await Promise.all([
        databaseFigures(),
        deps.dataDir === undefined ? Promise.resolve(null) : embeddedStore(deps.dataDir),
      ]);
      return { ...database, providers: providers(), embeddedStore: embedded, readFailures };
    },
  };
}
