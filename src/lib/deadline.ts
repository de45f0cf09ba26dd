/**
 * A signal that aborts when `parent` aborts or after `ms`, whichever comes first.
 *
 * Not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: on our Node line the timeout signal
 * inside a composite can be garbage-collected before it fires, and then the composite never
 * aborts (nodejs/node#57736) — a provider call that should give up after 1 s hung for the whole
 * request deadline. Here the timer closes over the controller, so it always fires, and `dispose`
 * clears it and detaches from the parent so nothing accumulates on long-lived signals.
 */
export interface Deadline {
  signal: AbortSignal;
  /** True when this deadline's own timer fired (not the parent). */
  timedOut(): boolean;
  dispose(): void;
}

export function deadline(parent: AbortSignal, ms: number): Deadline {
  const controller = new AbortController();
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    controller.abort(new DOMException('deadline passed', 'TimeoutError'));
  }, ms);
  const onParentAbort = () => controller.abort(parent.reason);
  if (parent.aborted) controller.abort(parent.reason);
  else parent.addEventListener('abort', onParentAbort, { once: true });
  return {
    signal: controller.signal,
    timedOut: () => fired,
    dispose() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onParentAbort);
    },
  };
}
