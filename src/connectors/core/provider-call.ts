import type { Clock } from '../../lib/clock.ts';
import { deadline } from '../../lib/deadline.ts';
import type { Logger } from '../../lib/logger.ts';
import type { CallContext, Connector, SettlementEntry } from './connector.ts';

/** What a connector call that threw counts as: no answer, like a lost one. */
export interface ProviderCallFailed {
  kind: 'unknown';
  code: 'connector_error';
  message: string;
}

export interface ProviderCallDeps {
  clock: Clock;
  log: Logger;
  connectorTimeoutMs: number;
}

/**
 * Calls a connector with the connector deadline. Connectors answer with outcomes, never throw; a
 * throw is a bug or a broken connector, so it is logged with `context` and answers `unknown`
 * (the caller's retry or sync path then handles it like a lost answer). Every module that calls a
 * provider goes through here, except create, which also tells a timeout from other failures.
 */
export async function callProvider<T>(
  deps: ProviderCallDeps,
  what: string,
  context: Record<string, unknown>,
  call: (ctx: CallContext) => Promise<T>,
): Promise<T | ProviderCallFailed> {
  const connectorDeadline = deadline(null, deps.connectorTimeoutMs);
  try {
    return await call({ signal: connectorDeadline.signal, now: deps.clock.now() });
  } catch (error) {
    deps.log.error({ err: error, ...context }, `connector ${what} threw`);
    return { kind: 'unknown', code: 'connector_error', message: 'provider call failed' };
  } finally {
    connectorDeadline.dispose();
  }
}

/** A connector's settlement report for [from, to), or undefined when it cannot be read now. */
export async function fetchSettlementReport(
  deps: ProviderCallDeps,
  connector: Connector,
  from: Date,
  to: Date,
): Promise<SettlementEntry[] | undefined> {
  const name = connector.capabilities.connector;
  const outcome = await callProvider(deps, 'settlement report', { connector: name }, (ctx) =>
    connector.fetchSettlementReport({ from, to }, ctx),
  );
  if (outcome.kind === 'report') return outcome.entries;
  deps.log.warn({ connector: name, code: outcome.code }, 'settlement report unavailable');
  return undefined;
}
