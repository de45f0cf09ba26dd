/**
 * The arithmetic of the charts (docs/overview.md): bar lengths and shares from bigint counts and
 * amounts by integer division, so an amount never goes through a float.
 */

/** The length of a bar of `value` on a scale where `max` is `full` units long (0 when max is 0). */
export function scaled(value: bigint, max: bigint, full: number): number {
  if (!Number.isInteger(full) || full < 0) throw new Error(`full length ${full} is not a whole number`);
  if (max <= 0n || value <= 0n) return 0;
  const clamped = value > max ? max : value;
  return Number((clamped * BigInt(full)) / max);
}

/** The largest of some values (0 for none). */
export function maxOf(values: readonly bigint[]): bigint {
  return values.reduce((m, v) => (v > m ? v : m), 0n);
}

/** part / whole in whole basis points (1 % = 100), rounded down; undefined when whole is 0. */
export function basisPoints(part: bigint, whole: bigint): bigint | undefined {
  if (whole <= 0n) return undefined;
  return (part * 10_000n) / whole;
}

/** "97.25 %" from basis points; "—" when there is nothing to divide by. */
export function percentText(bp: bigint | undefined): string {
  if (bp === undefined) return '—';
  return `${bp / 100n}.${(bp % 100n).toString().padStart(2, '0')} %`;
}

/** Counts for people: 1234567 → "1,234,567". */
export function countText(count: bigint | number): string {
  return BigInt(count)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}
