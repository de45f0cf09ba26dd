import { ingestSettlements, type SettlementDeps } from '../modules/settlement/settlement-ingest.ts';
import type { Job } from './job-runner.ts';

/**
 * Settlement ingestion on a schedule: every run reads each settling connector's report after its
 * cursor and records what settled (src/modules/settlement/settlement-ingest.ts). One run covers
 * every connector, so a run never needs to repeat at once.
 */
export const SETTLEMENT_INGEST_INTERVAL_MS = 60_000;

export function settlementIngestJob(deps: SettlementDeps, intervalMs = SETTLEMENT_INGEST_INTERVAL_MS): Job {
  return {
    name: 'settlement-ingest',
    intervalMs,
    batchSize: Number.MAX_SAFE_INTEGER,
    run: async () => (await ingestSettlements(deps)).settledPayments,
  };
}
