/**
 * Configuration comes from the environment, read once here and nowhere else. Every value has a
 * documented default (README "Configuration"); a bad value stops the start with a clear message.
 */
export interface Config {
  host: string;
  port: number;
  /** Embedded store directory; ignored when databaseUrl is set. */
  dataDir: string;
  /** Where the embedded database runs: its own worker thread (default) or the HTTP thread (decision 0020). */
  embeddedDbThread: 'worker' | 'main';
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  /** Deployment secret: keys the API-key hash and encrypts stored webhook secrets. */
  secret: string | undefined;
  publicBaseUrl: string | undefined;
  /** SMTP server for invitation mails (SMTP_URL, smtp:// or smtps://); unset: links are only shown to copy. */
  smtpUrl: string | undefined;
  /** The sender of those mails (SMTP_FROM). */
  smtpFrom: string;
  webhookAllowlist: string[];
  /** Connectors production keys may reach. Sandbox keys only ever reach the simulators. */
  productionConnectors: string[];
  /** Midtrans server key (MIDTRANS_SERVER_KEY); the Midtrans connectors are registered only when it is set. */
  midtransServerKey: string | undefined;
  /** Midtrans Core API base URL: production by default, https://api.sandbox.midtrans.com for its sandbox. */
  midtransBaseUrl: string;
  /** Xendit secret API key (XENDIT_SECRET_KEY); with a callback token, registers the Xendit connectors. */
  xenditSecretKey: string | undefined;
  /** Xendit callback verification tokens (XENDIT_CALLBACK_TOKEN, comma-separated while rotating). */
  xenditCallbackTokens: string[];
  /** Xendit API base URL (XENDIT_BASE_URL). */
  xenditBaseUrl: string;
  dbPoolSize: number;
  dbConnectTimeoutMs: number;
  dbStatementTimeoutMs: number;
  /** Plan-stable statements as named prepared statements on PostgreSQL (DB_PREPARED_STATEMENTS, decision 0030). */
  dbPreparedStatements: boolean;
  bodyLimitBytes: number;
  idempotencyLeaseMs: number;
  idempotencyTtlHours: number;
  connectorTimeoutMs: number;
  creationAbandonMs: number;
  authCacheTtlMs: number;
  /** Token bucket per merchant × environment; 0 turns rate limiting off. */
  rateLimitPerSecond: number;
  rateLimitBurst: number;
  logLevel: string;
  /** OTLP/HTTP collector base URL (OTEL_EXPORTER_OTLP_ENDPOINT): tracing is on when set (docs/tracing.md). */
  otlpEndpoint: string | undefined;
  /** Where the sandbox providers run; unset: inside this process under /_sandbox/providers. */
  sandboxProviderUrl: string | undefined;
  /** Master secret shared with separately run sandbox providers; unset: derived from the deployment secret. */
  sandboxProviderSecret: string | undefined;
  /** First status sync of an open attempt, after its instructions were issued. */
  statusSyncDelayMs: number;
  /** How often the settlement ingestion reads the providers' reports. */
  settlementIngestIntervalMs: number;
  /** The in-process sandbox providers settle a paid charge this long after payment (0: on demand only). */
  sandboxSettlementDelayMs: number;
  /** Fault injection for crash tests (see src/lib/failpoints.ts); empty in normal runs. */
  failpoints: string;
  runJobs: boolean;
  /** Webhook dispatcher (docs/webhooks.md, "Operating the dispatcher"). */
  webhookTimeoutMs: number;
  webhookConnectTimeoutMs: number;
  webhookLeaseMs: number;
  webhookConcurrency: number;
  webhookConcurrencyPerEndpoint: number;
  webhookPollMs: number;
  eventRetentionDays: number;
  webhookDeliveryRetentionDays: number;
  /** Payer data (e-mails, …) is erased this many days after a payment's final state (docs/payer-data.md); undefined: kept. */
  payerDataRetentionDays: number | undefined;
  /** Scheduled backups of the embedded store (docs/backups.md): off unless BACKUP_DIR is set. */
  backupDir: string | undefined;
  backupEveryMs: number;
  backupKeep: number;
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

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(`${name} must be one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function nonEmpty(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function httpUrl(env: Env, name: string): string | undefined {
  const raw = nonEmpty(env, name);
  if (raw === undefined) return undefined;
  if (!/^https?:\/\/[^/]/.test(raw) || !URL.canParse(raw)) throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  return raw.replace(/\/+$/, '');
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
    embeddedDbThread: oneOf(env, 'EMBEDDED_DB_THREAD', ['worker', 'main'] as const, 'worker'),
    databaseUrl: nonEmpty(env, 'DATABASE_URL'),
    redisUrl: nonEmpty(env, 'REDIS_URL'),
    secret,
    publicBaseUrl: nonEmpty(env, 'PUBLIC_BASE_URL'),
    smtpUrl: smtpUrlOf(nonEmpty(env, 'SMTP_URL')),
    smtpFrom: nonEmpty(env, 'SMTP_FROM') ?? 'Tributary <no-reply@localhost>',
    webhookAllowlist: list(env, 'WEBHOOK_ALLOWLIST'),
    productionConnectors: list(env, 'PRODUCTION_CONNECTORS'),
    midtransServerKey: nonEmpty(env, 'MIDTRANS_SERVER_KEY'),
    midtransBaseUrl: (nonEmpty(env, 'MIDTRANS_BASE_URL') ?? 'https://api.midtrans.com').replace(/\/+$/, ''),
    xenditSecretKey: nonEmpty(env, 'XENDIT_SECRET_KEY'),
    xenditCallbackTokens: list(env, 'XENDIT_CALLBACK_TOKEN'),
    xenditBaseUrl: (nonEmpty(env, 'XENDIT_BASE_URL') ?? 'https://api.xendit.co').replace(/\/+$/, ''),
    dbPoolSize: int(env, 'DB_POOL_SIZE', 20, 1, 500),
    dbConnectTimeoutMs: int(env, 'DB_CONNECT_TIMEOUT_MS', 2_000, 50, 60_000),
    dbStatementTimeoutMs: int(env, 'DB_STATEMENT_TIMEOUT_MS', 5_000, 100, 600_000),
    dbPreparedStatements: oneOf(env, 'DB_PREPARED_STATEMENTS', ['on', 'off'] as const, 'on') === 'on',
    bodyLimitBytes: int(env, 'BODY_LIMIT_BYTES', 64 * 1024, 1024, 10 * 1024 * 1024),
    idempotencyLeaseMs: int(env, 'IDEMPOTENCY_LEASE_MS', 60_000, 100, 3_600_000),
    idempotencyTtlHours: int(env, 'IDEMPOTENCY_TTL_HOURS', 24, 24, 24 * 90),
    connectorTimeoutMs: int(env, 'CONNECTOR_TIMEOUT_MS', 10_000, 50, 120_000),
    creationAbandonMs: int(env, 'CREATION_ABANDON_MS', 60_000, 100, 86_400_000),
    authCacheTtlMs: int(env, 'AUTH_CACHE_TTL_MS', 5_000, 0, 300_000),
    rateLimitPerSecond: int(env, 'RATE_LIMIT_PER_SECOND', 100, 0, 1_000_000),
    rateLimitBurst: int(env, 'RATE_LIMIT_BURST', 200, 1, 10_000_000),
    logLevel: nonEmpty(env, 'LOG_LEVEL') ?? 'info',
    otlpEndpoint: httpUrl(env, 'OTEL_EXPORTER_OTLP_ENDPOINT'),
    sandboxProviderUrl: nonEmpty(env, 'SANDBOX_PROVIDER_URL')?.replace(/\/+$/, ''),
    sandboxProviderSecret: nonEmpty(env, 'SANDBOX_PROVIDER_SECRET'),
    statusSyncDelayMs: int(env, 'STATUS_SYNC_DELAY_MS', 300_000, 1_000, 86_400_000),
    settlementIngestIntervalMs: int(env, 'SETTLEMENT_INGEST_INTERVAL_MS', 60_000, 1_000, 86_400_000),
    sandboxSettlementDelayMs: int(env, 'SANDBOX_SETTLEMENT_DELAY_MS', 86_400_000, 0, 30 * 86_400_000),
    failpoints: env['TRIBUTARY_FAILPOINTS'] ?? '',
    runJobs: (env['RUN_JOBS'] ?? 'true') !== 'false',
    // Unset keeps payer data for as long as the payment exists (the default: erasing is a decision).
    payerDataRetentionDays:
      nonEmpty(env, 'PAYER_DATA_RETENTION_DAYS') === undefined ? undefined : int(env, 'PAYER_DATA_RETENTION_DAYS', 0, 1, 36_500),
    ...webhookConfig(env),
    ...backupConfig(env),
  };
}

/** `30s`, `15m`, `6h`, `1d`: how often a scheduled backup runs. */
function duration(env: Env, name: string, fallback: string, minMs: number): number {
  const raw = nonEmpty(env, name) ?? fallback;
  const match = /^(\d+)(s|m|h|d)$/.exec(raw);
  const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
  const ms = match === null ? NaN : Number(match[1]) * unitMs[match[2] as keyof typeof unitMs];
  if (!(ms >= minMs && ms <= 30 * 86_400_000)) {
    throw new ConfigError(
      `${name} must be a duration like 30s, 15m, 6h or 1d (at least ${minMs / 1000} s, at most 30d), got "${raw}"`,
    );
  }
  return ms;
}

function backupConfig(env: Env) {
  const backupDir = nonEmpty(env, 'BACKUP_DIR');
  // PostgreSQL is backed up by pgBackRest (WAL archiving, point-in-time recovery), not by us.
  if (backupDir !== undefined && nonEmpty(env, 'DATABASE_URL') !== undefined) {
    throw new ConfigError('BACKUP_DIR backs up the embedded store; with DATABASE_URL use pgBackRest (docs/backups.md)');
  }
  return {
    backupDir,
    backupEveryMs: duration(env, 'BACKUP_EVERY', '24h', 1_000),
    backupKeep: int(env, 'BACKUP_KEEP', 7, 1, 1_000),
  };
}

function webhookConfig(env: Env) {
  const webhookTimeoutMs = int(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 100, 60_000);
  const webhookConnectTimeoutMs = int(env, 'WEBHOOK_CONNECT_TIMEOUT_MS', 5_000, 50, 30_000);
  const webhookLeaseMs = int(env, 'WEBHOOK_LEASE_MS', 60_000, 1_000, 3_600_000);
  // A lease shorter than a send would let a second worker send the same delivery while the first
  // is still waiting for the answer.
  if (webhookLeaseMs <= webhookTimeoutMs + webhookConnectTimeoutMs) {
    throw new ConfigError('WEBHOOK_LEASE_MS must be longer than WEBHOOK_TIMEOUT_MS + WEBHOOK_CONNECT_TIMEOUT_MS');
  }
  return {
    webhookTimeoutMs,
    webhookConnectTimeoutMs,
    webhookLeaseMs,
    webhookConcurrency: int(env, 'WEBHOOK_CONCURRENCY', 64, 1, 1_000),
    webhookConcurrencyPerEndpoint: int(env, 'WEBHOOK_CONCURRENCY_PER_ENDPOINT', 4, 1, 100),
    webhookPollMs: int(env, 'WEBHOOK_POLL_MS', 250, 10, 60_000),
    // At least a week: an event must outlive its ~3-day retry schedule.
    eventRetentionDays: int(env, 'EVENT_RETENTION_DAYS', 90, 7, 3_650),
    webhookDeliveryRetentionDays: int(env, 'WEBHOOK_DELIVERY_RETENTION_DAYS', 30, 1, 3_650),
  };
}

/** SMTP_URL must name an SMTP server (docs/team.md, invitations); anything else stops the start. */
function smtpUrlOf(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!/^smtps?:\/\/[^\s]+$/.test(value)) throw new Error('SMTP_URL must be smtp://… or smtps://… (user:password@host:port)');
  return value;
}
