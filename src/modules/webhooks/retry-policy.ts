/**
 * When to try a delivery again. Pure: time and randomness are passed in.
 *
 * The schedule is the Standard Webhooks / Svix one (product.md): attempt 1 at once, then after
 * 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h and 24 h — ten attempts over about 3 days and
 * 3.5 hours. Each wait gets ±10 % jitter so that a receiver that failed for many events at once
 * is not hit by all their retries in the same second. A `Retry-After` longer than the scheduled
 * wait is honoured (capped at 24 h); it never earns extra attempts.
 */
export const RETRY_SCHEDULE_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  14 * 3_600_000,
  20 * 3_600_000,
  24 * 3_600_000,
];
export const MAX_ATTEMPTS = RETRY_SCHEDULE_MS.length;
export const JITTER_RATIO = 0.1;
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/**
 * The wait before the next attempt after `attemptsMade` attempts failed, or undefined when the
 * delivery is exhausted. `random` returns a number in [0, 1).
 */
export function nextRetryDelayMs(attemptsMade: number, random: () => number, retryAfterMs?: number): number | undefined {
  const base = RETRY_SCHEDULE_MS[attemptsMade];
  if (base === undefined) return undefined;
  const jittered = Math.round(base * (1 + JITTER_RATIO * (2 * random() - 1)));
  const floor = retryAfterMs === undefined ? 0 : Math.min(retryAfterMs, MAX_RETRY_AFTER_MS);
  return Math.max(jittered, floor);
}

/** `Retry-After` as milliseconds from `now`: delta-seconds or an HTTP date; undefined if absent or invalid. */
export function parseRetryAfterMs(value: string | string[] | undefined, now: Date): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (text === undefined || text === '') return undefined;
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  // An HTTP date names its weekday and month; anything else (`-5`, `1.5`) is not one, even if
  // Date.parse would make something of it.
  if (!/^[A-Za-z]{3},? /.test(text)) return undefined;
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

export type AttemptOutcome = 'succeeded' | 'http_error' | 'redirect' | 'timeout' | 'network_error' | 'blocked';

/** What a status code means for a delivery (Standard Webhooks "Delivery success and failure"). */
export function outcomeOfStatus(status: number): { outcome: AttemptOutcome; gone: boolean } {
  if (status >= 200 && status <= 299) return { outcome: 'succeeded', gone: false };
  if (status >= 300 && status <= 399) return { outcome: 'redirect', gone: false };
  return { outcome: 'http_error', gone: status === 410 };
}
