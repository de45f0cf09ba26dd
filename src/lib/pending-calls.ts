/**
 * What waits for an answer, by id: the calls in flight to the embedded database's thread, the
 * transactions open on that thread.
 *
 * Not a `Map` with an id counter (decision 0035). A `Map` that keeps gaining and losing entries is
 * rehashed into a new table every few dozen operations, and on Node 20's V8 the old table keeps a
 * link to the new one and the entries it held. Once one table is in the old generation (a major
 * collection promotes the live one), that chain of dead tables keeps every later table — and the
 * waiters in them, their promises and the values they resolved with — alive through young
 * collections: at 3,000 GETs/s every row the database thread sent back was promoted (~2.1 KB per
 * GET) and the main thread needed a major collection every ~10 s. Here the waiters are in one array
 * of slots that grows only with the most calls ever in flight at once, and an answered slot is
 * cleared.
 *
 * An id names a slot and that slot's use: a slot is reused, an id never is (up to 2^32 uses of one
 * slot), so a stale or repeated answer finds nothing rather than someone else's call.
 */
const SLOT_IDS = 2 ** 21;

export class PendingCalls<T> {
  readonly #slots: (T | undefined)[] = [];
  /** How many times each slot has been given out. */
  readonly #uses: number[] = [];
  /** Free slots, the last freed first. */
  readonly #free: number[] = [];

  /** Registers `waiter` and returns its id (0 for the first ever). */
  add(waiter: T): number {
    let slot = this.#free.pop();
    if (slot === undefined) {
      slot = this.#slots.length;
      if (slot >= SLOT_IDS) throw new Error(`more than ${SLOT_IDS} calls in flight`);
      this.#slots.push(undefined);
      this.#uses.push(0);
    }
    const use = this.#uses[slot] as number;
    this.#uses[slot] = use + 1;
    this.#slots[slot] = waiter;
    return use * SLOT_IDS + slot;
  }

  /** The waiter for `id`, still registered; undefined for an id not (or no longer) in use. */
  get(id: number): T | undefined {
    const slot = id % SLOT_IDS;
    return this.#uses[slot] === Math.floor(id / SLOT_IDS) + 1 ? this.#slots[slot] : undefined;
  }

  /** The waiter for `id`, which is then gone; undefined for an id not (or no longer) in use. */
  take(id: number): T | undefined {
    const waiter = this.get(id);
    if (waiter === undefined) return undefined;
    const slot = id % SLOT_IDS;
    this.#slots[slot] = undefined;
    this.#free.push(slot);
    return waiter;
  }

  /** Every waiter, each taken. */
  takeAll(): T[] {
    const all: T[] = [];
    this.#slots.forEach((waiter, slot) => {
      if (waiter === undefined) return;
      all.push(waiter);
      this.#slots[slot] = undefined;
      this.#free.push(slot);
    });
    return all;
  }

  /** Waiting now: every slot is either holding a waiter or free. */
  get size(): number {
    return this.#slots.length - this.#free.length;
  }
}
