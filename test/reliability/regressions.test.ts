import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTestApp, json, quickStart, type TestApp } from '../harness/test-app.ts';
import { openTestStore } from '../harness/test-store.ts';

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
