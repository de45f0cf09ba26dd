import { spawn } from 'node:child_process';

/**
 * Bulk history for the PostgreSQL benchmarks that need a big database (bench/overview.ts,
 * bench/history.ts): rows generated deterministically per payment number and streamed into
 * `COPY … FROM STDIN` through psql, never through the API. Each payment has its attempt and two
 * events (payment.pending and its final event).
 */
export const DAY_MS = 86_400_000;

const CONNECTORS = [
  ['bank', 'sandbox_bank'],
  ['ewallet', 'sandbox_ewallet'],
  ['counter', 'sandbox_counter'],
] as const;

/** Streams `lines()` into `COPY <table> (<columns>) FROM STDIN` through psql. */
export async function copyInto(url: string, table: string, columns: string, lines: () => Generator<string>): Promise<void> {
  const child = spawn('psql', [url, '-v', 'ON_ERROR_STOP=1', '-q', '-c', `COPY ${table} (${columns}) FROM STDIN`], {
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let chunk: string[] = [];
  for (const line of lines()) {
    chunk.push(line);
    if (chunk.length === 2000) {
      // Respect back-pressure: a generated stream must not fill memory ahead of the database.
      if (!child.stdin.write(chunk.join(''))) await new Promise((r) => child.stdin.once('drain', r));
      chunk = [];
    }
  }
  child.stdin.end(chunk.join(''));
  const code = await exited;
  if (code !== 0) throw new Error(`COPY ${table} failed (${String(code)}): ${stderr}`);
}

export type HistoryRowKind = 'payment' | 'attempt' | 'event';

/**
 * Payments [from, to), evenly over [startMs, startMs + spanMs), with their merchants and ids. The
 * line generators take a part of that range to write it in chunks; the times stay the whole's.
 */
export interface Spread {
  from: number;
  to: number;
  startMs: number;
  spanMs: number;
  merchantOf(n: number): string;
  /** The id of payment n's row of `kind`; events have slot 0 (payment.pending) and 1 (the final one). */
  idOf(kind: HistoryRowKind, n: number, createdMs: number, slot: 0 | 1): string;
}

/**
 * A 32-bit hash of the payment number. Outcomes, channels and amounts are drawn from it rather than
 * from the number itself, so that any regular subset of payments (one merchant's: every M-th
 * number) still sees the whole mix: with `n % 100` one merchant of 1,000 had one status only.
 */
function mix(n: number): number {
  let h = Math.imul(n ^ (n >>> 16), 0x45d9f3b);
  h = Math.imul(h ^ (h >>> 16), 0x45d9f3b);
  return (h ^ (h >>> 16)) >>> 0;
}

/** A deterministic spread of outcomes, channels, amounts and times to pay per payment number. */
export function paymentOf(n: number, r: Spread) {
  // Evenly over [startMs, startMs + spanMs): payment n of [from, to).
  const createdMs = r.startMs + Math.floor(((n - r.from) * r.spanMs) / Math.max(1, r.to - r.from));
  const h = mix(n);
  const [channel, connector] = CONNECTORS[(h >>> 8) % 3] as (typeof CONNECTORS)[number];
  const roll = h % 100;
  const status = roll < 72 ? 'succeeded' : roll < 80 ? 'failed' : roll < 95 ? 'expired' : 'canceled';
  const amountMinor = BigInt(10_000 + ((h >>> 12) % 500) * 1_000) * 100n;
  const payMs = status === 'succeeded' ? 5_000 + ((h >>> 4) % 7200) * 1_000 : 0;
  return {
    id: r.idOf('payment', n, createdMs, 0),
    attempt: r.idOf('attempt', n, createdMs, 0),
    merchantId: r.merchantOf(n),
    createdMs,
    channel,
    connector,
    status,
    amountMinor,
    payMs,
  };
}
export type BenchPayment = ReturnType<typeof paymentOf>;

/** The payment's two events: payment.pending when created, its final event when it closed. */
export function eventsOf(n: number, p: BenchPayment, r: Spread) {
  const endMs = p.status === 'succeeded' ? p.createdMs + p.payMs : p.createdMs + DAY_MS;
  return [
    { id: r.idOf('event', n, p.createdMs, 0), type: 'payment.pending', version: 1, atMs: p.createdMs },
    { id: r.idOf('event', n, endMs, 1), type: `payment.${p.status}`, version: 2, atMs: endMs },
  ] as const;
}

export const iso = (ms: number) => new Date(ms).toISOString();

export function* paymentLines(r: Spread, from = r.from, to = r.to): Generator<string> {
  for (let n = from; n < to; n += 1) {
    const p = paymentOf(n, r);
    const paid = p.status === 'succeeded';
    const closedMs = paid ? p.createdMs + p.payMs : p.createdMs + DAY_MS;
    yield (
      [
        p.id,
        p.merchantId,
        'sandbox',
        p.status,
        p.amountMinor,
        'IDR',
        `bench-${n}`,
        'auto',
        p.channel,
        '2026-11-01',
        2,
        iso(p.createdMs + DAY_MS),
        iso(p.createdMs),
        iso(closedMs),
        paid ? iso(p.createdMs + p.payMs) : '\\N',
        iso(closedMs),
        paid ? p.amountMinor : 0n,
      ].join('\t') + '\n'
    );
  }
}
export const PAYMENT_COLUMNS =
  'id, merchant_id, environment, status, amount_minor, currency, reference_no, channel_requested, channel, api_version, version, expires_at, created_at, updated_at, succeeded_at, closed_at, amount_paid_minor';

export function* attemptLines(r: Spread, from = r.from, to = r.to): Generator<string> {
  for (let n = from; n < to; n += 1) {
    const p = paymentOf(n, r);
    yield (
      [p.attempt, p.id, p.merchantId, 'sandbox', 1, p.connector, p.channel, p.status, iso(p.createdMs), iso(p.createdMs)].join(
        '\t',
      ) + '\n'
    );
  }
}
export const ATTEMPT_COLUMNS =
  'id, payment_id, merchant_id, environment, seq, connector, channel, status, created_at, updated_at';

export function* eventLines(r: Spread, from = r.from, to = r.to): Generator<string> {
  for (let n = from; n < to; n += 1) {
    const p = paymentOf(n, r);
    for (const e of eventsOf(n, p, r)) {
      yield (
        [e.id, p.merchantId, 'sandbox', e.type, 'payment', p.id, e.version, '2026-11-01', '{}', iso(e.atMs)].join('\t') + '\n'
      );
    }
  }
}
export const EVENT_COLUMNS =
  'id, merchant_id, environment, type, object_type, object_id, object_version, api_version, payload, created_at';
