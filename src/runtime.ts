import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Config, ConfigError } from './config.ts';
import type { Connector, ConnectorCapabilities } from './connectors/core/connector.ts';
import { ConnectorRegistry } from './connectors/core/registry.ts';
import { createMidtransConnectors } from './connectors/midtrans/midtrans.connector.ts';
import type { SandboxConnectorOptions } from './connectors/core/sandbox-wire.ts';
import { createXenditConnectors } from './connectors/xendit/xendit-connectors.ts';
import { createSandboxBankConnector, sandboxBankCapabilities } from './connectors/sandbox-bank/sandbox-bank.connector.ts';
import {
  createSandboxCounterConnector,
  sandboxCounterCapabilities,
} from './connectors/sandbox-counter/sandbox-counter.connector.ts';
import {
  createSandboxEwalletConnector,
  sandboxEwalletCapabilities,
} from './connectors/sandbox-ewallet/sandbox-ewallet.connector.ts';
import { migrate } from './db/migrate.ts';
import { openEmbeddedStore } from './db/pglite-store.ts';
import { openEmbeddedStoreOnWorker } from './db/pglite-worker-store.ts';
import { openPostgresStore } from './db/postgres-store.ts';
import type { Store } from './db/store.ts';
import { tracedStore } from './db/traced-store.ts';
import type { Logger } from './lib/logger.ts';
import { tracingEnabled } from './lib/tracing.ts';
import { SANDBOX_PROVIDERS_PREFIX } from './sandbox/sandbox-providers.ts';
import { sandboxCredentials } from './sandbox/sandbox-secrets.ts';

/**
 * What both the server and the CLI need before doing anything: the store (migrated), the
 * deployment secret and the connectors.
 */
export interface Runtime {
  store: Store;
  secret: string;
  connectors: ConnectorRegistry;
  /** Master secret of the sandbox providers' credentials (embedded providers use it too). */
  sandboxSecret: string;
  /** This process's own address; set to the bound port once listening. */
  loopback: Loopback;
  close(): Promise<void>;
}

/** What every built-in connector can do, without reaching any provider. */
export const BUILT_IN_CAPABILITIES: readonly ConnectorCapabilities[] = [
  sandboxBankCapabilities,
  sandboxEwalletCapabilities,
  sandboxCounterCapabilities,
];

export interface BuiltInConnectorOptions {
  /** Base address of the sandbox providers (resolved per call). */
  sandboxBaseUrl: () => string;
  /** Master secret both sides derive the providers' API keys and signing secrets from. */
  sandboxSecret: string;
  log: Logger;
  http?: SandboxConnectorOptions['http'];
  /** Midtrans (MIDTRANS_SERVER_KEY): registers midtrans_bank and midtrans_counter; absent, neither exists. */
  midtrans?: {
    serverKey: string;
    baseUrl: string | (() => string);
    /** Our public base URL: each charge asks Midtrans to notify `{base}/provider/{connector}/callback`. */
    notificationBaseUrl?: () => string;
  };
  /**
   * Xendit (XENDIT_SECRET_KEY and XENDIT_CALLBACK_TOKEN): registers xendit_bank, xendit_ewallet and
   * xendit_counter; absent, none exists.
   */
  xendit?: {
    secretKey: string;
    callbackTokens: readonly string[];
    baseUrl: string | (() => string);
    /** Our public base URL: an e-wallet sends the payer back to `{base}/pay/{payment}`. */
    publicBaseUrl: () => string;
  };
}

/** Every connector this build ships. */
export function builtInConnectors(options: BuiltInConnectorOptions): Connector[] {
  const wire = (connector: string): SandboxConnectorOptions => {
    const credentials = sandboxCredentials(options.sandboxSecret, connector);
    return {
      baseUrl: options.sandboxBaseUrl,
      apiKey: credentials.apiKey,
      webhookSecrets: [credentials.webhookSecret],
      log: options.log,
      ...(options.http === undefined ? {} : { http: options.http }),
    };
  };
  return [
    createSandboxBankConnector(wire(sandboxBankCapabilities.connector)),
    createSandboxEwalletConnector(wire(sandboxEwalletCapabilities.connector)),
    createSandboxCounterConnector(wire(sandboxCounterCapabilities.connector)),
    ...(options.midtrans === undefined ? [] : midtransConnectors(options.midtrans, options)),
    ...(options.xendit === undefined ? [] : xenditConnectors(options.xendit, options)),
  ];
}

function midtransConnectors(m: NonNullable<BuiltInConnectorOptions['midtrans']>, options: BuiltInConnectorOptions): Connector[] {
  const base = m.notificationBaseUrl;
  return createMidtransConnectors({
    baseUrl: m.baseUrl,
    serverKey: m.serverKey,
    log: options.log,
    ...(base === undefined
      ? {}
      : { notificationUrl: (connector: string) => `${base().replace(/\/+$/, '')}/provider/${connector}/callback` }),
    ...(options.http === undefined ? {} : { http: options.http }),
  });
}

function xenditConnectors(x: NonNullable<BuiltInConnectorOptions['xendit']>, options: BuiltInConnectorOptions): Connector[] {
  return createXenditConnectors({
    baseUrl: x.baseUrl,
    secretKey: x.secretKey,
    callbackTokens: x.callbackTokens,
    payerReturnUrl: (paymentId) => `${x.publicBaseUrl().replace(/\/+$/, '')}/pay/${encodeURIComponent(paymentId)}`,
    log: options.log,
    ...(options.http === undefined ? {} : { http: options.http }),
  });
}

/** The sandbox providers' master secret: SANDBOX_PROVIDER_SECRET, else the deployment secret. */
export function sandboxMasterSecret(config: Config, deploymentSecret: string): string {
  return config.sandboxProviderSecret ?? deploymentSecret;
}

/** Where this process is reachable on loopback (the embedded providers and their callbacks live there). */
/**
 * This process's own loopback address, for the calls it makes to itself (the in-process sandbox
 * providers and their callbacks). The port is the one actually bound, which differs from
 * config.port when that is 0 (an ephemeral port, as tests use): main.ts sets it after listen().
 */
export interface Loopback {
  url(): string;
  setPort(port: number): void;
}

export function createLoopback(config: Pick<Config, 'host' | 'port'>): Loopback {
  let port = config.port;
  return {
    url: () => loopbackBaseUrl({ host: config.host, port }),
    setPort(bound) {
      port = bound;
    },
  };
}

/**
 * The address payers and merchants reach this deployment at (payment views' pay-page links):
 * PUBLIC_BASE_URL, else the configured listen address. Every process that writes payment events
 * (server, CLI) must agree on it.
 */
export function publicBaseUrl(config: Pick<Config, 'publicBaseUrl' | 'host' | 'port'>): string {
  return config.publicBaseUrl ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
}

export function loopbackBaseUrl(config: Pick<Config, 'host' | 'port'>): string {
  const wildcard = config.host === '0.0.0.0' || config.host === '::' || config.host === '';
  const host = wildcard ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

/**
 * The deployment secret keys the API-key hash. With PostgreSQL it must come from
 * TRIBUTARY_SECRET (every process must share it). On the embedded store it is generated once into
 * DATA_DIR/secret.key (mode 0600) so that `npm start` needs no setup.
 */
export function resolveSecret(config: Config): string {
  if (config.secret !== undefined) return config.secret;
  if (config.databaseUrl !== undefined) {
    throw new ConfigError(
      'TRIBUTARY_SECRET is required with DATABASE_URL (at least 32 characters, e.g. `openssl rand -hex 32`).',
    );
  }
  const path = join(resolve(config.dataDir), 'secret.key');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(resolve(config.dataDir), { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(path, `${secret}\n`, { mode: 0o600, flag: 'wx' });
  return secret;
}

export async function openStore(config: Config, owner: string, log: Logger): Promise<Store> {
  if (config.databaseUrl !== undefined) {
    return openPostgresStore({
      connectionString: config.databaseUrl,
      poolSize: config.dbPoolSize,
      connectTimeoutMs: config.dbConnectTimeoutMs,
      statementTimeoutMs: config.dbStatementTimeoutMs,
      preparedStatements: config.dbPreparedStatements,
      onPoolError: (error) => log.warn({ err: error }, 'idle database connection lost'),
      onPreparedStatementsOff: (error) =>
        log.warn(
          { err: error },
          'prepared statements off for this process: a database session refused one (a transaction pooler without prepared-statement support? set DB_PREPARED_STATEMENTS=off) or a statement result changed under it (a migration)',
        ),
    });
  }
  const open = config.embeddedDbThread === 'worker' ? openEmbeddedStoreOnWorker : openEmbeddedStore;
  return open({ dataDir: resolve(config.dataDir), owner });
}

export async function openRuntime(config: Config, owner: string, log: Logger): Promise<Runtime> {
  const secret = resolveSecret(config);
  const sandboxSecret = sandboxMasterSecret(config, secret);
  const loopback = createLoopback(config);
  const sandboxBaseUrl = () => config.sandboxProviderUrl ?? `${loopback.url()}${SANDBOX_PROVIDERS_PREFIX}`;
  const connectors = new ConnectorRegistry(
    builtInConnectors({
      sandboxBaseUrl,
      sandboxSecret,
      log,
      ...(config.midtransServerKey === undefined
        ? {}
        : {
            midtrans: {
              serverKey: config.midtransServerKey,
              baseUrl: config.midtransBaseUrl,
              notificationBaseUrl: () => config.publicBaseUrl ?? loopback.url(),
            },
          }),
      ...(config.xenditSecretKey === undefined || config.xenditCallbackTokens.length === 0
        ? {}
        : {
            xendit: {
              secretKey: config.xenditSecretKey,
              callbackTokens: config.xenditCallbackTokens,
              baseUrl: config.xenditBaseUrl,
              publicBaseUrl: () => config.publicBaseUrl ?? loopback.url(),
            },
          }),
    }),
    config.productionConnectors,
  );
  const opened = await openStore(config, owner, log);
  // A span per transaction when tracing is on (main.ts starts it first); the plain store otherwise.
  const store = tracingEnabled() ? tracedStore(opened) : opened;
  try {
    const { applied } = await migrate(store);
    if (applied.length > 0) log.info({ applied }, 'migrations applied');
  } catch (error) {
    await store.close();
    throw error;
  }
  return { store, secret, connectors, sandboxSecret, loopback, close: () => store.close() };
}

/**
 * An acknowledgement is only as durable as the database's commit (docs/decisions/0017). The
 * embedded store always runs with both settings on; a PostgreSQL server configured for speed over
 * safety is the operator's choice, but it must not be a silent one. The server checks at start
 * (the CLI does not: its stdout may be JSON for a script).
 */
export async function warnIfNotDurable(store: Store, log: Logger): Promise<void> {
  const rows = await store.query<{ name: string; setting: string }>(
    `SELECT name, setting FROM pg_settings
      WHERE (name = 'fsync' AND setting <> 'on') OR (name = 'synchronous_commit' AND setting = 'off')`,
  );
  for (const row of rows) {
    log.warn(
      { setting: row.name, value: row.setting },
      'the database does not flush commits to disk before acknowledging them: a crash may lose acknowledged payments',
    );
  }
}
