/**
 * Knobs of the reliability suite (docs/reliability.md): defaults keep `npm run test:reliability`
 * to a few minutes in CI; raise them for longer runs, e.g.
 * `RELIABILITY_KILL_ROUNDS=20 FUZZ_RUNS=100000 npm run test:reliability`.
 */
function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new Error(`${name} must be a whole number`);
  return Number(raw);
}

export const knobs = {
  /** kill -9 rounds per store. */
  killRounds: intFromEnv('RELIABILITY_KILL_ROUNDS', 4),
  /** Concurrent careful clients in the load-under-fault scenarios. */
  workers: intFromEnv('RELIABILITY_WORKERS', 8),
  /** Same-key creates fired at once across the two processes. */
  sameKeyRequests: intFromEnv('RELIABILITY_SAME_KEY_REQUESTS', 200),
  sameKeyRounds: intFromEnv('RELIABILITY_SAME_KEY_ROUNDS', 3),
  /** Generated requests of the fuzz scenario (at least 10,000 in CI). */
  fuzzRuns: intFromEnv('FUZZ_RUNS', 10_000),
  /** Fixed seed to replay a fuzz run; random (and printed) otherwise. */
  fuzzSeed: process.env['FUZZ_SEED'] === undefined ? undefined : intFromEnv('FUZZ_SEED', 0),
  /** Seconds the database stays down in the outage scenario. */
  outageSeconds: intFromEnv('RELIABILITY_OUTAGE_SECONDS', 4),
};

/** Server settings for fault scenarios: short leases so that retries after a crash resume within seconds. */
export const FAULT_ENV = {
  IDEMPOTENCY_LEASE_MS: '3000',
  CONNECTOR_TIMEOUT_MS: '1000',
  DB_CONNECT_TIMEOUT_MS: '1000',
};
