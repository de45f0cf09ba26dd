import type { AmountBounds, Channel, ConnectorCapabilities } from '../../connectors/core/connector.ts';
import { CHANNELS } from '../../connectors/core/connector.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { toMajorNumber } from '../../lib/money.ts';

/**
 * Routing: a pure function from the request and the enabled connectors' capabilities to an
 * ordered list of candidates and a trace saying why each connector is in or out. Same input →
 * same output; no clock, no I/O. The create flow tries the candidates in order (failover).
 */
export interface RouteRequest {
  channel: Channel | 'auto';
  currency: CurrencyCode;
  amountMinor: bigint;
}

export interface Candidate {
  connector: string;
  channel: Channel;
  instrument: string;
}

export interface TraceEntry {
  connector: string;
  channel: Channel;
  decision: 'candidate' | 'excluded';
  reason: string;
}

export type RouteFailureCode = 'channel_unavailable' | 'currency_not_supported' | 'amount_out_of_range';

export type RouteResult =
  | { ok: true; candidates: Candidate[]; trace: TraceEntry[] }
  | { ok: false; code: RouteFailureCode; message: string; details: Record<string, unknown>[]; trace: TraceEntry[] };

/** `auto` prefers channels in this order: bank transfer first (cheapest), then e-wallet, then counter. */
const AUTO_CHANNEL_ORDER: readonly Channel[] = CHANNELS;

export function routePayment(request: RouteRequest, enabled: readonly ConnectorCapabilities[]): RouteResult {
  const trace: TraceEntry[] = [];
  const channels = request.channel === 'auto' ? AUTO_CHANNEL_ORDER : [request.channel];
  const onChannel = channels.flatMap((ch) => enabled.filter((c) => c.channel === ch));
  if (onChannel.length === 0) {
    return {
      ok: false,
      code: 'channel_unavailable',
      message:
        request.channel === 'auto'
          ? 'No payment channel is enabled for this environment.'
          : `The ${request.channel} channel is not enabled for this environment.`,
      details: [{ channel: request.channel }],
      trace,
    };
  }
  const candidates: Candidate[] = [];
  const outOfRange: { connector: string; bounds: AmountBounds }[] = [];
  let currencySupported = false;
  for (const c of onChannel) {
    const bounds = c.currencies[request.currency];
    if (bounds === undefined) {
      trace.push({
        connector: c.connector,
        channel: c.channel,
        decision: 'excluded',
        reason: `currency ${request.currency} not supported`,
      });
      continue;
    }
    currencySupported = true;
    if (request.amountMinor < bounds.minMinor || request.amountMinor > bounds.maxMinor) {
      outOfRange.push({ connector: c.connector, bounds });
      trace.push({ connector: c.connector, channel: c.channel, decision: 'excluded', reason: 'amount outside connector bounds' });
      continue;
    }
    const instrument = c.instruments[0];
    if (instrument === undefined) {
      trace.push({ connector: c.connector, channel: c.channel, decision: 'excluded', reason: 'no instrument configured' });
      continue;
    }
    candidates.push({ connector: c.connector, channel: c.channel, instrument: instrument.code });
    trace.push({
      connector: c.connector,
      channel: c.channel,
      decision: 'candidate',
      reason: `supports ${request.currency} at this amount`,
    });
  }
  if (candidates.length > 0) return { ok: true, candidates, trace };
  if (!currencySupported) {
    return {
      ok: false,
      code: 'currency_not_supported',
      message: `No enabled connector accepts ${request.currency} for channel ${request.channel}.`,
      details: [
        {
          field: 'currency',
          issue: 'currency_not_supported',
          message: `${request.currency} is not accepted for channel ${request.channel}`,
        },
      ],
      trace,
    };
  }
  return {
    ok: false,
    code: 'amount_out_of_range',
    message: `The amount is outside the bounds of every connector for ${request.currency} on channel ${request.channel}.`,
    details: outOfRange.map(({ connector, bounds }) => ({
      field: 'amount',
      issue: 'amount_out_of_range',
      connector,
      min: toMajorNumber(bounds.minMinor, request.currency),
      max: toMajorNumber(bounds.maxMinor, request.currency),
      message: `between ${toMajorNumber(bounds.minMinor, request.currency)} and ${toMajorNumber(bounds.maxMinor, request.currency)} ${request.currency}`,
    })),
    trace,
  };
}
