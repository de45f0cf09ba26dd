/**
 * A fault applies while it has calls left (or always, without a count); each use spends one. The
 * count lives on the fault object the control API set, so every part spends the same budget.
 */
export function spendFault<F extends { remaining?: number }>(fault: F | undefined): F | undefined {
  if (fault === undefined) return undefined;
  if (fault.remaining !== undefined) {
    if (fault.remaining <= 0) return undefined;
    fault.remaining -= 1;
  }
  return fault;
}
