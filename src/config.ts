/**
 * Configuration comes from the environment, read once here and nowhere else. Every value has a
 * documented default (README "Configuration"); a bad value stops the start with a clear message.
 */
export interface Config {
  host: string;
  port: number;
  /** Embedded store directory; ignored when databaseUrl is set. */
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Deployment secret: keys the API-key hash and encrypts stored webhook secrets. */
  secret: string | undefined;
  publicBaseUrl: string | undefined;
  webhookAllowlist: string[];
  /** Connectors production keys may reach. Sandbox keys only ever reach the simulators. */
  productionConnectors: string[];
  dbPoolSize: number;
  dbConnectTimeoutMs: number;
  dbStatementTimeoutMs: number;
  bodyLimitBytes: number;
  idempotencyLeaseMs: number;
  idempotencyTtlHours: number;
  connectorTimeoutMs: number;
  creationAbandonMs: number;
  authCacheTtlMs: number;
  logLevel: string;
  /** Where the sandbox providers run; unset: inside this process under /_sandbox/providers. */
  sandboxProviderUrl: string | undefined;
  /** Master secret shared with separately run sandbox providers; unset: derived from the deployment secret. */
  sandboxProviderSecret: string | undefined;
  /** First status sync of an open attempt, after its instructions were issued. */
  statusSyncDelayMs: number;
  /** Fault injection for crash tests (see src/lib/failpoints.ts); empty in normal runs. */
  failpoints: string;
  runJobs: boolean;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

function int(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function list(env: Env, name: string): string[] {
  return (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

export function loadConfig(env: Env = process.env): Config {
  const secret = nonEmpty(env, 'TRIBUTARY_SECRET');
  if (secret !== undefined && secret.length < 32) {
    throw new ConfigError('TRIBUTARY_SECRET must be at least 32 characters (use `openssl rand -hex 32`)');
  }
  return {
    host: nonEmpty(env, 'HOST') ?? '127.0.0.1',
    port: int(env, 'PORT', 8080, 0, 65535),
    dataDir: nonEmpty(env, 'DATA_DIR') ?? './data',
    databaseUrl: nonEmpty(env, 'DATABASE_URL'),
    redisUrl: nonEmpty(env, 'REDIS_URL'),
    secret,
    publicBaseUrl: nonEmpty(env, 'PUBLIC_BASE_URL'),
    webhookAllowlist: list(env, 'WEBHOOK_ALLOWLIST'),
    productionConnectors: list(env, 'PRODUCTION_CONNECTORS'),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 20, 1, 500),
    dbConnectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 2_000, 50, 60_000),
    dbStatementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000),
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    idempotencyLeaseMs: int(env, 'IDEMPOTENCY_LEASE_MS', 60_000, 100, 3_600_000),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 24, 24 * 90),
    connectorTimeoutMs: int(env, 'CONNECTOR_TIMEOUT_MS', 10_000, 50, 120_000),
    creationAbandonMs: int(env, 'CREATION_ABANDON_MS', 60_000, 100, 86_400_000),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 5_000, 0, 300_000),
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
    sandboxProviderUrl: nonEmpty(env, 'SANDBOX_PROVIDER_URL')?.replace(/\/+$/, ''),
    sandboxProviderSecret: nonEmpty(env, 'SANDBOX_PROVIDER_SECRET'),
    statusSyncDelayMs: int(env, 'STATUS_SYNC_DELAY_MS', 300_000, 1_000, 86_400_000),
    failpoints: env['TRIBUTARY_FAILPOINTS'] ?? '',
    runJobs: (env['RUN_JOBS'] ?? 'true') !== 'false',
  };
}
