/**
 * A signal that aborts when `parent` aborts (if there is one) or after `ms`, whichever comes first.
 * Call `dispose()` when the work is done: the timer and everything it holds go with it.
 *
 * Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on our Node line the timeout signal
 * inside a composite can be garbage-collected before it fires, and then the composite never
 * aborts (nodejs/node#57736) — a provider call that should give up after 1 s hung for the whole
 * request deadline. Here the timer closes over the controller, so it always fires, and `dispose`
 * clears it and detaches from the parent so nothing accumulates on long-lived signals.
 *
 * Not a bare `AbortSignal.timeout(ms)` either, for a call that usually ends long before `ms`: that
 * signal, its timer and what its listeners hold live until `ms` has passed and then build a
 * `DOMException` nobody reads — on a create, ~3 KB per request that outlived two young collections
 * and went to the old generation (decision 0028).
 */
export interface Deadline {
  signal: AbortSignal;
  /** True when this deadline's own timer fired (not the parent). */
  timedOut(): boolean;
  dispose(): void;
}

export function deadline(parent: AbortSignal | null, ms: number): Deadline {
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(new DOMException('deadline passed', 'TimeoutError'));
  }, ms);
  const onParentAbort = () => controller.abort(parent?.reason);
  if (parent?.aborted === true) controller.abort(parent.reason);
  else parent?.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => fired,
    dispose() {
      clearTimeout(timer);
      parent?.removeEventListener('abort', onParentAbort);
    },
  };
}
