import { verifyLedger } from '../../../src/modules/ledger/ledger.ts';
import type { Queryable, Row } from '../../../src/db/store.ts';
import { call, quickStartBody } from './api-client.ts';
import type { CreateLedger, QueryFn } from './create-load.ts';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What a restore must show (docs/backups.md): every payment acknowledged before the backup (or the
 * recovery time) is in the restored store with its idempotency record, its events and its ledger
 * entries, each row identical to the source's; the ledger invariants hold; and replaying its key
 * on a server over the restored store returns the very bytes of the first 201.
 */

/** What was acknowledged up to now: key → payment id, and key → first 201 body. */
export function acknowledgedSoFar(ledger: CreateLedger): { ids: Map<string, string>; bodies: Map<string, string> } {
  return { ids: new Map(ledger.acked), bodies: new Map(ledger.bodies) };
}

/**
 * Pays acknowledged payments through the sandbox's simulate endpoint (one every `everyMs`), so the
 * store holds captures and their ledger entries too. Returns the ids it paid; `stop()` ends it.
 */
export function startPayer(o: { baseUrl: () => string; apiKey: string; ledger: CreateLedger; everyMs: number }): {
  paid: Set<string>;
  stop(): Promise<void>;
} {
  const paid = new Set<string>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const next = [...o.ledger.acked.values()].find((id) => !paid.has(id));
      if (next !== undefined) {
        const res = await call(o.baseUrl(), 'POST', `/sandbox/payment/${next}/simulate`, {
          key: o.apiKey,
          body: { outcome: 'succeeded' },
        });
        if (res.ok && res.status < 300) paid.add(next);
      }
      await pause(o.everyMs);
    }
  })();
  return {
    paid,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

export interface RestoreCounts {
  payments: number;
  events: number;
  journalEntries: number;
  postings: number;
  succeeded: number;
}

const text = (v: unknown) => (v === null || v === undefined ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v));
const rowKey = (r: Row) =>
  Object.keys(r)
    .sort()
    .map((k) => `${k}=${text(r[k])}`)
    .join('|');

/** Compares the restored store with the source store for the payments in `acked`. */
export async function checkRestoredStore(
  source: QueryFn,
  restored: QueryFn,
  acked: Map<string, string>,
): Promise<{ problems: string[]; counts: RestoreCounts }> {
  const problems: string[] = [];
  const ids = [...acked.values()];
  const keys = [...acked.keys()];
  const counts: RestoreCounts = { payments: 0, events: 0, journalEntries: 0, postings: 0, succeeded: 0 };

  const payments = await restored(`SELECT id, reference_no, status FROM payments WHERE id = ANY($1)`, [ids]);
  const byId = new Map(payments.map((p) => [String(p['id']), p]));
  counts.payments = payments.length;
  counts.succeeded = payments.filter((p) => p['status'] === 'succeeded').length;
  for (const [key, id] of acked) {
    const p = byId.get(id);
    if (p === undefined) problems.push(`acknowledged payment ${id} (key ${key}) is not in the restored store`);
    else if (p['reference_no'] !== key) problems.push(`payment ${id}: reference ${text(p['reference_no'])}, expected ${key}`);
  }

  // Idempotency records: finished, pointing at the payment, with the very response the key replays.
  const keySql = `SELECT key, status, resource_id, response_status, response_body FROM idempotency_keys
                   WHERE operation = 'payment.create' AND key = ANY($1) ORDER BY key`;
  const restoredKeys = new Map((await restored(keySql, [keys])).map((r) => [String(r['key']), r]));
  const sourceKeys = new Map((await source(keySql, [keys])).map((r) => [String(r['key']), r]));
  for (const [key, id] of acked) {
    const k = restoredKeys.get(key);
    if (k === undefined) problems.push(`key ${key} has no idempotency record in the restored store`);
    else if (k['status'] !== 'finished' || k['resource_id'] !== id) {
      problems.push(`key ${key}: ${text(k['status'])} → ${text(k['resource_id'])} (acknowledged ${id})`);
    } else if (rowKey(k) !== rowKey(sourceKeys.get(key) ?? {})) problems.push(`key ${key}: record differs from the source's`);
  }

  // Events and ledger rows are immutable: each restored one must equal the source's.
  const same = async (what: string, sql: string, params: unknown[], minimum: (rows: Row[]) => string[]) => {
    const restoredRows = await restored(sql, params);
    const sourceRows = new Set((await source(sql, params)).map(rowKey));
    for (const r of restoredRows) if (!sourceRows.has(rowKey(r))) problems.push(`${what} ${rowKey(r).slice(0, 160)} differs`);
    problems.push(...minimum(restoredRows));
    return restoredRows;
  };
  const events = await same(
    'event',
    `SELECT id, type, object_id, object_version, payload::text AS payload FROM events WHERE object_id = ANY($1)`,
    [ids],
    (rows) => {
      const seen = new Set(rows.filter((r) => r['type'] === 'payment.pending').map((r) => String(r['object_id'])));
      return ids.filter((id) => !seen.has(id)).map((id) => `payment ${id} has no payment.pending event in the restored store`);
    },
  );
  counts.events = events.length;
  const entries = await same(
    'journal entry',
    `SELECT id, type, object_id, entry_key FROM journal_entries WHERE object_id = ANY($1)`,
    [ids],
    (rows) => {
      const captured = new Set(rows.filter((r) => r['type'] === 'capture').map((r) => String(r['object_id'])));
      return payments
        .filter((p) => p['status'] === 'succeeded' && !captured.has(String(p['id'])))
        .map((p) => `succeeded payment ${text(p['id'])} has no capture entry in the restored store`);
    },
  );
  counts.journalEntries = entries.length;
  const postings = await same(
    'posting',
    `SELECT entry_id, seq, account_kind, currency, amount_minor::text AS amount_minor FROM postings WHERE entry_id = ANY($1)`,
    [entries.map((e) => e['id'])],
    () => [],
  );
  counts.postings = postings.length;

  const queryable: Queryable = {
    query: async <T extends Row>(sql: string, params?: readonly unknown[]) => (await restored(sql, [...(params ?? [])])) as T[],
    exec: async (sql: string) => {
      await restored(sql);
    },
  };
  for (const v of await verifyLedger(queryable)) problems.push(`ledger invariant: ${v.kind} ${v.detail}`);
  return { problems, counts };
}

/** Replays every key on a server over the restored store: the same bytes, marked replayed. */
export async function checkReplays(baseUrl: string, apiKey: string, bodies: Map<string, string>): Promise<string[]> {
  const problems: string[] = [];
  const entries = [...bodies.entries()];
  const one = async ([key, body]: [string, string]) => {
    for (let attempt = 1; attempt <= 20; attempt += 1) {
      const res = await call(baseUrl, 'POST', '/payment/create', {
        key: apiKey,
        body: quickStartBody(key),
        headers: { 'idempotency-key': key },
      });
      if (!res.ok || res.status === 503 || res.status === 429) {
        await pause(250);
        continue;
      }
      if (res.status !== 201 || res.text !== body) {
        problems.push(`replay of ${key}: ${res.status}, ${res.text === body ? 'same' : 'different'} body`);
      } else if (res.headers.get('idempotent-replayed') !== 'true') problems.push(`replay of ${key} not marked replayed`);
      return;
    }
    problems.push(`replay of ${key}: no answer`);
  };
  for (let i = 0; i < entries.length; i += 8) await Promise.all(entries.slice(i, i + 8).map(one));
  return problems;
}
