import type { AmountBounds, ConnectorCapabilities } from '../../connectors/core/connector.ts';
import type { CurrencyCode } from '../../lib/currencies.ts';
import { toMajorNumber } from '../../lib/money.ts';
import { CHANNELS, type Channel, type RoutingPreferences } from '../../kernel/index.ts';

/**
 * Routing: a pure function of the request, the enabled connectors' capabilities, the merchant's
 * preferences and the connectors' health, to an ordered list of candidates and a trace saying why
 * each connector is in, out, or demoted. Same input → same output; no clock, no I/O (health is a
 * snapshot taken by the caller). The create flow tries the candidates in order (failover).
 * docs/routing.md describes the rules.
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
  /** Position among the candidates (1 = tried first); absent when excluded. */
  rank?: number;
}

export type HealthState = 'healthy' | 'degraded' | 'down';

/** One connector's recent record, as the in-process tracker saw it (connector-health.ts). */
export interface ConnectorHealthSnapshot {
  state: HealthState;
  consecutiveFailures: number;
}

export type RouteFailureCode = 'channel_unavailable' | 'currency_not_supported' | 'amount_out_of_range';

export type RouteResult =
  | { ok: true; candidates: Candidate[]; trace: TraceEntry[] }
  | { ok: false; code: RouteFailureCode; message: string; details: Record<string, unknown>[]; trace: TraceEntry[] };

/** `auto` prefers channels in this order: bank transfer first (cheapest), then e-wallet, then counter. */
const AUTO_CHANNEL_ORDER: readonly Channel[] = CHANNELS;

/** Preferred items first (in the preferred order), then the rest in their given order. Stable. */
function preferFirst<T>(items: readonly T[], preferred: readonly T[] | undefined): T[] {
  if (preferred === undefined || preferred.length === 0) return [...items];
  const first = preferred.filter((p) => items.includes(p));
  return [...first, ...items.filter((i) => !first.includes(i))];
}

export function routePayment(
  request: RouteRequest,
  enabled: readonly ConnectorCapabilities[],
  preferences: RoutingPreferences = {},
  health: Readonly<Record<string, ConnectorHealthSnapshot>> = {},
): RouteResult {
  const trace: TraceEntry[] = [];
  const channels = request.channel === 'auto' ? preferFirst(AUTO_CHANNEL_ORDER, preferences.channelOrder) : [request.channel];
  const connectorNames = preferFirst(
    enabled.map((c) => c.connector),
    preferences.connectorOrder,
  );
  const onChannel = channels.flatMap((ch) =>
    connectorNames.map((name) => enabled.find((c) => c.connector === name)).filter((c) => c !== undefined && c.channel === ch),
  ) as ConnectorCapabilities[];
  if (onChannel.length === 0) return channelUnavailable(request, trace);

  const healthy: { candidate: Candidate; entry: TraceEntry }[] = [];
  const demoted: { candidate: Candidate; entry: TraceEntry }[] = [];
  const outOfRange: { connector: string; bounds: AmountBounds }[] = [];
  let currencySupported = false;
  let excludedByMerchant = 0;
  for (const c of onChannel) {
    const excluded = (reason: string) => trace.push({ connector: c.connector, channel: c.channel, decision: 'excluded', reason });
    if (preferences.excludedConnectors?.includes(c.connector) === true) {
      excludedByMerchant += 1;
      excluded('excluded by merchant preference');
      continue;
    }
    const bounds = c.currencies[request.currency];
    if (bounds === undefined) {
      excluded(`currency ${request.currency} not supported`);
      continue;
    }
    currencySupported = true;
    if (request.amountMinor < bounds.minMinor || request.amountMinor > bounds.maxMinor) {
      outOfRange.push({ connector: c.connector, bounds });
      excluded('amount outside connector bounds');
      continue;
    }
    const preferredInstrument = preferences.instruments?.[c.connector];
    const instrument = c.instruments.find((i) => i.code === preferredInstrument) ?? c.instruments[0];
    if (instrument === undefined) {
      excluded('no instrument configured');
      continue;
    }
    const reasons = [`supports ${request.currency} at this amount`];
    if (preferredInstrument !== undefined) {
      reasons.push(
        instrument.code === preferredInstrument
          ? `instrument ${instrument.code} preferred by merchant`
          : `preferred instrument ${preferredInstrument} not offered; using ${instrument.code}`,
      );
    }
    const h = health[c.connector];
    const item = {
      candidate: { connector: c.connector, channel: c.channel, instrument: instrument.code },
      entry: { connector: c.connector, channel: c.channel, decision: 'candidate' as const, reason: '' },
    };
    if (h?.state === 'down') {
      // Demoted, not excluded: when every connector is down the request still gets a try.
      reasons.push(`demoted: ${h.consecutiveFailures} consecutive failures`);
      item.entry.reason = reasons.join('; ');
      demoted.push(item);
    } else {
      if (h?.state === 'degraded') reasons.push(`degraded: ${h.consecutiveFailures} recent failure(s)`);
      item.entry.reason = reasons.join('; ');
      healthy.push(item);
    }
  }
  const ordered = [...healthy, ...demoted];
  ordered.forEach((item, index) => {
    item.entry.rank = index + 1;
  });
  // The trace lists candidates in the order they will be tried, then the excluded ones.
  const fullTrace = [...ordered.map((i) => i.entry), ...trace];
  if (ordered.length > 0) return { ok: true, candidates: ordered.map((i) => i.candidate), trace: fullTrace };
  if (excludedByMerchant === onChannel.length) return channelUnavailable(request, fullTrace);
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
      trace: fullTrace,
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
    trace: fullTrace,
  };
}

function channelUnavailable(request: RouteRequest, trace: TraceEntry[]): RouteResult {
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
