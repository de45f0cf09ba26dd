import type { ChargeOutcome, ChargeRequest, Connector } from '../../src/connectors/core/connector.ts';
import type { Channel } from '../../src/kernel/index.ts';

/**
 * A connector whose answers the test decides, for the failure cases the sandbox providers do not
 * produce on their own (refusals, timeouts, a call that blocks until released). It records every
 * call it receives, so tests can assert what reached the "provider". Only charge creation is
 * scriptable; the other flows answer as a provider that knows no charge (lifecycle tests use the
 * sandbox providers over HTTP instead).
 */
export interface ScriptedConnector extends Connector {
  calls: ChargeRequest[];
  /** Decides each call; default: issue deterministic instructions. */
  behaviour: (request: ChargeRequest, signal: AbortSignal) => Promise<ChargeOutcome>;
}

export function issued(request: ChargeRequest): ChargeOutcome {
  return {
    kind: 'issued',
    providerReference: `scripted_${request.attemptId}`,
    expiresAt: request.expiresAt,
    instructions: {
      type: 'virtual_account',
      bank_code: 'TEST',
      bank_name: 'Test Bank',
      account_number: `9${request.attemptId.slice(-12)}`,
      account_holder_name: request.merchantName,
    },
  };
}

export function createScriptedConnector(name: string, channel: Channel = 'bank'): ScriptedConnector {
  const connector: ScriptedConnector = {
    calls: [],
    behaviour: async (request) => issued(request),
    capabilities: {
      connector: name,
      displayName: `Scripted ${name}`,
      channel,
      simulator: true,
      instruments: [{ code: 'TEST', name: 'Test Bank' }],
      currencies: { IDR: { minMinor: 100n, maxMinor: 100_000_000_000n }, USD: { minMinor: 1n, maxMinor: 10_000_000n } },
      instructionTtl: { defaultMs: 3_600_000, minMs: 60_000, maxMs: 86_400_000 },
      supports: { cancel: true, refund: true, partialRefund: true, settlement: true },
      notificationTrust: 'signed',
    },
    async createCharge(request, ctx) {
      connector.calls.push(request);
      return connector.behaviour(request, ctx.signal);
    },
    cancelCharge: async () => ({ kind: 'refused', code: 'not_found', message: 'scripted connector keeps no charges' }),
    queryCharge: async () => ({ kind: 'not_found' }),
    refund: async () => ({ kind: 'refused', code: 'not_found', message: 'scripted connector keeps no charges' }),
    verifyNotification: () => ({ ok: false, reason: 'bad_signature' }),
    parseNotification: () => ({ ok: false, reason: 'scripted connector sends no notifications' }),
    fetchSettlementReport: async () => ({ kind: 'report', entries: [] }),
  };
  return connector;
}

/** A promise plus its resolver: lets a test hold a connector call open and release it later. */
export function gate<T = void>(): { promise: Promise<T>; open(value: T): void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}
