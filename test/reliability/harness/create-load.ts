import pg from 'pg';
import { openEmbeddedStore } from '../../../src/db/pglite-store.ts';
import { type ApiResponse, call, type CallOptions, quickStartBody } from './api-client.ts';
import type { StoreTarget } from './processes.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Create load that behaves like a careful client: every request carries an Idempotency-Key, and
 * a request whose outcome is unknown (connection refused or reset, timeout, 503, 409 in progress)
 * is retried later with the same key and the same body. The ledger records what the service
 * acknowledged (201 received) and everything it should not have said.
 */
export class CreateLedger {
  /** key → payment id of the acknowledged (201) answer. */
  readonly acked = new Map<string, string>();
  /** key → the exact body of its first 201 (a replay of the key must return these bytes). */
  readonly bodies = new Map<string, string>();
  /** Sent but not acknowledged yet: the client must retry these. */
  readonly pending = new Set<string>();
  readonly statuses = new Map<string, number>();
  readonly violations: string[] = [];
  sent = 0;
  /** Responses (not network failures) with their latency, for scenarios that bound it. */
  readonly responses: { at: number; status: number; code: string | undefined; elapsedMs: number; retryAfter: string | null }[] =
    [];
  /** Requests that got no answer (refused, reset, timed out), with when they ended. */
  readonly failures: { at: number; error: string; elapsedMs: number }[] = [];

  count(label: string): void {
    this.statuses.set(label, (this.statuses.get(label) ?? 0) + 1);
  }
  violation(message: string): void {
    if (this.violations.length < 50) this.violations.push(message);
  }
  summary(): string {
    return `sent ${this.sent}, acked ${this.acked.size}, pending ${this.pending.size}; ${[...this.statuses.entries()].map(([k, v]) => `${k}: ${v}`).join(', ')}`;
  }
}

export type Outcome = 'acked' | 'retry' | 'rejected';

/** One create with `key`; records the answer in the ledger. */
export async function createOnce(
  baseUrl: string,
  apiKey: string,
  key: string,
  ledger: CreateLedger,
  timeoutMs = 8_000,
): Promise<Outcome> {
  ledger.sent += 1;
  ledger.pending.add(key);
  const res = await call(baseUrl, 'POST', '/payment/create', {
    key: apiKey,
    body: quickStartBody(key),
    headers: { 'idempotency-key': key },
    timeoutMs,
  });
  if (!res.ok) {
    ledger.failures.push({ at: Date.now(), error: res.error, elapsedMs: res.elapsedMs });
    ledger.count(`network:${res.error}`);
    return 'retry';
  }
  let code: string | undefined;
  let id: string | undefined;
  try {
    const body = res.json<{ code?: string; id?: string }>();
    code = body.code;
    id = body.id;
  } catch {
    ledger.violation(`${res.status} with a body that is not JSON: ${res.text.slice(0, 200)}`);
  }
  const retryAfter = res.headers.get('retry-after');
  ledger.responses.push({ at: Date.now(), status: res.status, code, elapsedMs: res.elapsedMs, retryAfter });
  ledger.count(code === undefined ? String(res.status) : `${res.status} ${code}`);
  if (res.status === 201 && id !== undefined) {
    const previous = ledger.acked.get(key);
    if (previous !== undefined && previous !== id)
      ledger.violation(`key ${key} acknowledged as two payments: ${previous} and ${id}`);
    ledger.acked.set(key, id);
    if (!ledger.bodies.has(key)) ledger.bodies.set(key, res.text);
    ledger.pending.delete(key);
    return 'acked';
  }
  if (res.status === 503 || (res.status === 409 && code === 'idempotency_request_in_progress')) {
    if (retryAfter === null) ledger.violation(`${res.status} ${code} without Retry-After`);
    return 'retry';
  }
  if (res.status === 429) {
    // Rate limited (on by default, as under `npm start`): a careful client waits as told, then
    // retries the same key. Nothing was done, so nothing is owed.
    if (retryAfter === null) ledger.violation('429 without Retry-After');
    await pause(retryAfterMs(retryAfter));
    return 'retry';
  }
  ledger.violation(`unexpected ${res.status} for key ${key}: ${res.text.slice(0, 300)}`);
  ledger.pending.delete(key);
  return 'rejected';
}

export interface CreateLoadOptions {
  baseUrl: () => string;
  apiKey: string;
  prefix: string;
  workers: number;
  ledger: CreateLedger;
  stop: () => boolean;
  /** Pause after an answer that asks for a retry (refused connections come back at once). */
  retryPauseMs?: number;
  /**
   * Worker w sends its first request w × this after the start. Creates of equal length otherwise
   * keep the workers in lockstep, and a fault then meets either every request in flight or none.
   */
  staggerMs?: number;
}

/** Retry-After in whole seconds (as we send it), bounded so that a wrong header cannot stall a test. */
function retryAfterMs(header: string | null): number {
  const seconds = Number(header);
  return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 10) * 1_000 : 1_000;
}

/**
 * `call` for checks after a fault: waits out 429s (Retry-After) and 503s, bounded, so that a
 * check never mistakes being rate limited for a missing payment.
 */
async function callPatiently(baseUrl: string, method: string, path: string, options: CallOptions): Promise<ApiResponse> {
  for (let attempt = 1; ; attempt += 1) {
    const res = await call(baseUrl, method, path, options);
    const busy = !res.ok || res.status === 429 || res.status === 503;
    if (!busy) return res;
    if (attempt >= 30) throw new Error(`${method} ${path}: still ${res.ok ? res.status : res.error} after ${attempt} tries`);
    await pause(res.ok ? retryAfterMs(res.headers.get('retry-after')) : 250);
  }
}

/**
 * What a merchant would check after a crash, over HTTP: every acknowledged payment answers
 * `GET /payment/{id}` with its reference, and replaying its key returns the same payment with
 * `Idempotent-Replayed: true` (never a second one). Returns the problems found.
 */
export async function checkAcknowledgedOverHttp(baseUrl: string, apiKey: string, ledger: CreateLedger): Promise<string[]> {
  const problems: string[] = [];
  const entries = [...ledger.acked.entries()];
  const checkOne = async ([key, id]: [string, string]) => {
    const got = await callPatiently(baseUrl, 'GET', `/payment/${id}`, { key: apiKey });
    if (got.status !== 200) problems.push(`GET ${id} (key ${key}): ${got.status} ${got.text.slice(0, 120)}`);
    else if (got.json<{ reference_no?: string }>().reference_no !== key) problems.push(`GET ${id}: another reference`);
    const replay = await callPatiently(baseUrl, 'POST', '/payment/create', {
      key: apiKey,
      body: quickStartBody(key),
      headers: { 'idempotency-key': key },
    });
    const replayedId = replay.status === 201 ? replay.json<{ id?: string }>().id : undefined;
    if (replayedId !== id) problems.push(`replay of ${key}: ${replay.status} ${String(replayedId)} instead of ${id}`);
    else if (replay.headers.get('idempotent-replayed') !== 'true') problems.push(`replay of ${key} not marked replayed`);
  };
  // A few at a time: the point is every key, not speed.
  for (let i = 0; i < entries.length; i += 8) await Promise.all(entries.slice(i, i + 8).map(checkOne));
  return problems;
}

/** Runs `workers` careful clients until `stop()`; each retries its own unacknowledged key first. */
export async function runCreateLoad(o: CreateLoadOptions): Promise<void> {
  let n = 0;
  const worker = async (w: number) => {
    if (o.staggerMs !== undefined) await pause(w * o.staggerMs);
    let retry: string | undefined;
    while (!o.stop()) {
      const key = retry ?? `${o.prefix}-${w}-${(n += 1)}`;
      const outcome = await createOnce(o.baseUrl(), o.apiKey, key, o.ledger);
      retry = outcome === 'retry' ? key : undefined;
      if (retry !== undefined) await pause(o.retryPauseMs ?? 100);
    }
  };
  await Promise.all(Array.from({ length: o.workers }, (_, w) => worker(w)));
}

/** After the faults: retries every unacknowledged key until acknowledged or the deadline passes. */
export async function drainPending(baseUrl: string, apiKey: string, ledger: CreateLedger, deadlineMs: number): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  while (ledger.pending.size > 0 && Date.now() < deadline) {
    const keys = [...ledger.pending].slice(0, 16);
    const outcomes = await Promise.all(keys.map((k) => createOnce(baseUrl, apiKey, k, ledger)));
    if (outcomes.includes('retry')) await pause(250);
  }
}

export type QueryFn = (sql: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** Runs `fn` with read access to the store (embedded: only while no server holds DATA_DIR). */
export async function withStoreQuery<T>(target: StoreTarget, fn: (query: QueryFn) => Promise<T>): Promise<T> {
  if (target.kind === 'embedded') {
    const store = await openEmbeddedStore({ dataDir: target.dataDir, owner: 'reliability-check' });
    try {
      return await fn((sql, params) => store.query(sql, params));
    } finally {
      await store.close();
    }
  }
  const client = new pg.Client({ connectionString: target.url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await fn(async (sql, params) => (await client.query(sql, params)).rows as Record<string, unknown>[]);
  } finally {
    await client.end();
  }
}

/**
 * The invariants after a fault: every acknowledged payment exists (pending, with its key's
 * reference_no) and its key points at it, and no key (= reference_no here) has two payments.
 * Returns the problems found; empty means the store agrees with every acknowledgement.
 */
export async function checkAcknowledged(query: QueryFn, prefix: string, ledger: CreateLedger): Promise<string[]> {
  const problems: string[] = [];
  const doubles = await query(
    `SELECT reference_no, count(*)::int AS n FROM payments WHERE reference_no LIKE $1 GROUP BY reference_no HAVING count(*) > 1`,
    [`${prefix}-%`],
  );
  for (const d of doubles) problems.push(`reference/key ${String(d['reference_no'])} has ${String(d['n'])} payments`);
  const ids = [...ledger.acked.values()];
  const rows = await query(`SELECT id, reference_no, status FROM payments WHERE id = ANY($1)`, [ids]);
  const byId = new Map(rows.map((r) => [String(r['id']), r]));
  const keys = await query(
    `SELECT key, resource_id, status FROM idempotency_keys WHERE operation = 'payment.create' AND key LIKE $1`,
    [`${prefix}-%`],
  );
  const keyRows = new Map(keys.map((r) => [String(r['key']), r]));
  for (const [key, id] of ledger.acked) {
    const p = byId.get(id);
    if (p === undefined) problems.push(`acknowledged payment ${id} (key ${key}) is missing`);
    else if (p['reference_no'] !== key || p['status'] !== 'pending') {
      problems.push(`acknowledged payment ${id}: reference ${String(p['reference_no'])}, status ${String(p['status'])}`);
    }
    const k = keyRows.get(key);
    if (k === undefined) problems.push(`acknowledged key ${key} has no idempotency record`);
    else if (k['resource_id'] !== id || k['status'] !== 'finished') {
      problems.push(`key ${key}: resource ${String(k['resource_id'])}, status ${String(k['status'])} (acknowledged ${id})`);
    }
  }
  return problems;
}

/** Starts careful create load with a fresh ledger and a unique key prefix; `stop()` ends it. */
export function startCreateLoad(o: Omit<CreateLoadOptions, 'ledger' | 'stop' | 'prefix'> & { tag: string }): {
  ledger: CreateLedger;
  prefix: string;
  stop(): Promise<void>;
} {
  const ledger = new CreateLedger();
  const prefix = `${o.tag}${Date.now().toString(36)}`;
  let stopped = false;
  const load = runCreateLoad({ ...o, prefix, ledger, stop: () => stopped });
  return {
    ledger,
    prefix,
    async stop() {
      stopped = true;
      await load;
    },
  };
}
