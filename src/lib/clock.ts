/** Time is passed in, never read from a global, so that tests can drive it. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock that only moves when told to; for tests and simulations. */
export class ManualClock implements Clock {
  #nowMs: number;
  constructor(start: Date | number = Date.UTC(2026, 0, 1)) {
    this.#nowMs = typeof start === 'number' ? start : start.getTime();
  }
  now(): Date {
    return new Date(this.#nowMs);
  }
  advance(ms: number): void {
    this.#nowMs += ms;
  }
  set(at: Date): void {
    this.#nowMs = at.getTime();
  }
}
