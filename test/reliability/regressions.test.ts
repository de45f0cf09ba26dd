import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isStoreUnavailable } from '../../src/db/db-errors.ts';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';
import { openTestStore, PG_URL } from '../harness/test-store.ts';
import { adminQuery } from './harness/databases.ts';

/**
 * Bugs the reliability suite found, pinned by focused tests on both stores (in-process, fast).
 * Each names the scenario that found it.
 */
for (const kind of ['embedded', 'postgres'] as const) {
  describe(`regressions found by the reliability suite (${kind})`, () => {
    let t: TestApp;
    before(async () => {
      t = await createTestApp({ testStore: await openTestStore({ kind }) });
    });
    after(async () => {
      await t.close();
      await t.testStore.close();
    });

    // Found by the fuzz scenario: PostgreSQL text and jsonb cannot hold U+0000, so a NUL inside a
    // free-text field reached the INSERT and came back as a 500 instead of a 400.
    const withNul: [string, Record<string, unknown>][] = [
      ['description', { description: 'gift\u0000wrap' }],
      ['metadata', { metadata: { notes: 'a\u0000b' } }],
      ['email', { email: 'payer\u0000@example.com' }],
      ['reference_no', { reference_no: 'order\u00001' }],
    ];
    for (const [field, override] of withNul) {
      it(`a NUL character in ${field} is a 400 invalid_request naming the field, not a 500`, async () => {
        const res = await t.call('POST', '/payment/create', { body: quickStart(override) });
        assert.equal(res.statusCode, 400, res.body);
        const body = json(res);
        assert.equal(body['code'], 'invalid_request');
        const details = body['details'] as { field: string }[];
        assert.ok(
          details.some((d) => d.field === field || d.field.startsWith(`${field}.`)),
          `details name ${field}: ${res.body}`,
        );
      });
    }
  });
}

describe('regressions found by the reliability suite (PostgreSQL store)', () => {
  // Found by the database-faults scenario: pg-pool removes its 'error' listener from a client while
  // it is checked out, so a backend terminated between two statements of a transaction (or a
  // server shutting down) made the client emit 'error' with no listener, and the API process
  // crashed. The transaction must fail as "store unavailable" (503) and the process live on.
  it('a backend terminated in the middle of a transaction fails that transaction, not the process', async () => {
    const ts = await openTestStore({ kind: 'postgres' });
    try {
      await assert.rejects(
        ts.store.transaction(async (tx) => {
          const [row] = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
          await adminQuery(PG_URL, 'SELECT pg_terminate_backend($1)', [row?.pid]);
          // Let the server's FATAL message arrive while no query is running on this client.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.query('SELECT 1');
        }),
        (error) => isStoreUnavailable(error),
      );
      const [again] = await ts.store.query<{ one: number }>('SELECT 1 AS one');
      assert.equal(again?.one, 1, 'the store serves the next query on a fresh connection');
    } finally {
      await ts.close();
    }
  });
});
