import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { importReportCommand } from '../../src/cli/settlement-import.ts';
import { createLogger } from '../../src/lib/logger.ts';
import { appForSuite, json } from '../harness/test-app.ts';
import { TEST_STORE } from '../harness/test-store.ts';

/**
 * `tributary settlement import`: a provider's settlement report as a file (for providers without
 * a report API, docs/money.md "Importing a settlement report") settles payments exactly as a
 * fetched report does, once, and records what it cannot apply as exceptions.
 */
describe(`settlement report import (${TEST_STORE})`, () => {
  const ctx = appForSuite({ settlementDelayMs: null });
  const dir = mkdtempSync(join(tmpdir(), 'tributary-import-'));
  const HEADER = 'provider_reference,attempt_id,currency,gross,fee,net,settled_at';

  const deps = () => ({
    store: ctx.t.testStore.store,
    clock: ctx.clock,
    log: createLogger('silent'),
    publicBaseUrl: 'http://127.0.0.1:8080',
    connectors: ctx.t.connectors,
    connectorTimeoutMs: 2_000,
  });
  const file = (name: string, lines: string[]) => {
    const path = join(dir, name);
    writeFileSync(path, `${[HEADER, ...lines].join('\n')}\n`);
    return path;
  };
  const attemptOf = async (paymentId: string) =>
    (await ctx.t.testStore.store.query<{ id: string }>('SELECT id FROM payment_attempts WHERE payment_id = $1', [paymentId]))[0]
      ?.id as string;

  it('settles the paid payment a line names, once; other lines become exceptions', async () => {
    const { id, charge } = await ctx.t.paidBankPayment();
    const attemptId = await attemptOf(id);
    const settledAt = ctx.clock.now().toISOString();
    const report = file('report.csv', [
      `${charge},${attemptId},IDR,150000.00,4000,146000,${settledAt}`,
      `unknown-charge,att_01UNKNOWN00000000000000000,IDR,1000,0,1000,${settledAt}`,
    ]);
    const first = await importReportCommand(deps(), 'sandbox_bank', report);
    assert.ok(first.ok, first.ok ? '' : first.problem);
    const value = first.value as { settled_payments: number; settlements: string[]; exceptions: number };
    assert.equal(value.settled_payments, 1);
    assert.equal(value.exceptions, 1);
    const p = await ctx.t.payment(id);
    assert.equal(p['settlement_id'], value.settlements[0]);
    assert.equal(p['fee'], 4000);
    assert.equal(p['net'], 146_000);
    const s = json(await ctx.t.call('GET', `/settlement/${String(p['settlement_id'])}`));
    assert.equal(s['connector'], 'sandbox_bank');
    assert.equal(s['gross'], 150_000);
    assert.deepEqual((await ctx.t.eventTypes(id)).slice(-1), ['payment.settled']);

    const again = await importReportCommand(deps(), 'sandbox_bank', report);
    assert.ok(again.ok);
    assert.deepEqual(again.value, { connector: 'sandbox_bank', lines: 2, settlements: [], settled_payments: 0, exceptions: 0 });
    assert.deepEqual((await ctx.t.eventTypes(id)).slice(-1), ['payment.settled'], 'settled once');
  });

  it('refuses a file with a bad line whole, an unknown connector and a missing file; nothing changes', async () => {
    const { id, charge } = await ctx.t.paidBankPayment();
    const attemptId = await attemptOf(id);
    const at = ctx.clock.now().toISOString();
    const bad = file('bad.csv', [`${charge},${attemptId},IDR,150000,4000,146000,${at}`, `x,y,IDR,lots,0,1,${at}`]);
    const refused = await importReportCommand(deps(), 'sandbox_bank', bad);
    assert.equal(refused.ok, false);
    assert.match(refused.ok ? '' : refused.problem, /line 3: gross "lots"/);
    assert.equal((await ctx.t.payment(id))['settlement_id'], null, 'the good line was not applied either');
    const unknown = await importReportCommand(deps(), 'no_such_connector', bad);
    assert.deepEqual(unknown, { ok: false, problem: 'no connector named no_such_connector is configured' });
    const missing = await importReportCommand(deps(), 'sandbox_bank', join(dir, 'absent.csv'));
    assert.equal(missing.ok, false);
  });
});
