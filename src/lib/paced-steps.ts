import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The statements of a background pass over the database the requests share, one after another
 * with a pause before each (after the first) at least as long as the one before it took, and never
 * shorter than `minPauseMs`: the pass takes at most about half of what it runs on — PGlite's one
 * thread (the embedded maintenance pass, decision 0032) or a core beside the requests (the
 * overview refresh's chunks, decision 0036) — and what queued behind a statement goes first.
 */
export class PacedSteps {
  #lastMs: number | undefined;
  readonly #minPauseMs: number;
  readonly #pause: (ms: number) => Promise<unknown>;

  /** `pause`: how to wait (tests record the pauses asked for instead of sleeping). */
  constructor(minPauseMs: number, pause: (ms: number) => Promise<unknown> = sleep) {
    this.#minPauseMs = minPauseMs;
    this.#pause = pause;
  }

  /** The pause the last statement calls for; none before the first. */
  async paceNext(): Promise<void> {
    if (this.#lastMs !== undefined) await this.#pause(Math.max(this.#minPauseMs, Math.ceil(this.#lastMs)));
  }

  /** Runs one statement and keeps how long it took (a failed one too), told to `onDone` as well. */
  async timed<T>(run: () => Promise<T>, onDone?: (ms: number) => void): Promise<T> {
    const started = performance.now();
    try {
      return await run();
    } finally {
      this.#lastMs = performance.now() - started;
      onDone?.(this.#lastMs);
    }
  }

  /** The pause, then the statement. */
  async step<T>(run: () => Promise<T>): Promise<T> {
    await this.paceNext();
    return this.timed(run);
  }
}
