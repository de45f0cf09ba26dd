import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Event } from '../../sdk/src/index.ts';
import { amountArg, CliUsageError, humanAmount } from '../../src/cli/cli-output.ts';
import { checkForwardUrl, checkSecret, EventWindow, matchesFilter, parseEventFilter } from '../../src/cli/listen-command.ts';
import { isMerchantCommand } from '../../src/cli/merchant-cli.ts';
import { generateWebhookSecret } from '../../src/modules/webhooks/webhook-signature.ts';

/** The pure parts of the merchant CLI; the commands themselves run in test/integration/cli-merchant.test.ts. */

const T0 = Date.parse('2026-11-02T03:04:05.000Z');
let seq = 0;
const ev = (offsetMs: number, type = 'payment.succeeded'): Event => ({
  id: `evt_${String((seq += 1)).padStart(26, '0')}`,
  type,
  created_at: new Date(T0 + offsetMs).toISOString(),
  api_version: '2026-11-01',
  data: { object: { id: 'pay_x' }, previous_attributes: {} },
});

/** An event log as GET /event serves it: newest first, `starting_after` an id, pages of `limit`. */
function log(limit = 2) {
  const events: Event[] = [];
  let calls = 0;
  const fetch = async (after: string | undefined) => {
    calls += 1;
    const sorted = [...events].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || (a.id < b.id ? 1 : -1));
    const start = after === undefined ? 0 : sorted.findIndex((e) => e.id === after) + 1;
    return { data: sorted.slice(start, start + limit), has_more: sorted.length > start + limit };
  };
  return { events, fetch, calls: () => calls };
}

describe('listen: which events are new', () => {
  it('forwards nothing that existed at start, then each new event once, oldest first', async () => {
    const l = log();
    l.events.push(ev(0), ev(1_000), ev(2_000));
    const w = new EventWindow(l.fetch);
    await w.prime();
    assert.deepEqual(await w.poll(), []);
    const a = ev(3_000);
    const b = ev(4_000);
    l.events.push(b, a);
    assert.deepEqual(
      (await w.poll()).map((e) => e.id),
      [a.id, b.id],
    );
    assert.deepEqual(await w.poll(), [], 'not twice');
  });

  it('catches an event that became visible after a newer one (committed late), within the look-back', async () => {
    const l = log();
    l.events.push(ev(0));
    const w = new EventWindow(l.fetch);
    await w.prime();
    const newer = ev(10_000);
    l.events.push(newer);
    assert.deepEqual(
      (await w.poll()).map((e) => e.id),
      [newer.id],
    );
    const late = ev(9_000); // stamped before `newer`, visible only now
    l.events.push(late);
    assert.deepEqual(
      (await w.poll()).map((e) => e.id),
      [late.id],
    );
  });

  it('stops reading at the look-back instead of paging through the whole log', async () => {
    const l = log(2);
    for (let i = 0; i < 50; i += 1) l.events.push(ev(i * 1_000));
    const w = new EventWindow(l.fetch);
    await w.prime();
    const before = l.calls();
    l.events.push(ev(200_000));
    assert.equal((await w.poll()).length, 1);
    assert.ok(l.calls() - before <= 2, `read ${l.calls() - before} pages`);
    assert.ok(w.seenCount <= 3, 'seen ids are kept for the look-back only');
  });

  it('an empty log at start: everything after is new', async () => {
    const l = log();
    const w = new EventWindow(l.fetch);
    await w.prime();
    l.events.push(ev(0), ev(1));
    assert.equal((await w.poll()).length, 2);
  });
});

describe('listen: arguments', () => {
  it('forwards only to this machine', async () => {
    for (const ok of ['http://127.0.0.1:3000/hook', 'http://127.8.9.1/x', 'https://[::1]:8443/hook', 'http://localhost:4000/']) {
      assert.equal((await checkForwardUrl(ok)).toString(), new URL(ok).toString());
    }
    for (const refused of [
      'http://example.com/hook',
      'http://10.0.0.1/hook',
      'http://169.254.169.254/',
      'http://[::ffff:10.0.0.1]/',
      'http://0.0.0.0:3000/',
      'file:///etc/passwd',
      'localhost:3000',
    ]) {
      await assert.rejects(checkForwardUrl(refused), CliUsageError, refused);
    }
  });

  it('event filters: exact types, groups, every type', () => {
    const filter = parseEventFilter('payment.succeeded, refund.*');
    assert.deepEqual(filter, ['payment.succeeded', 'refund.*']);
    assert.ok(matchesFilter('payment.succeeded', filter));
    assert.ok(matchesFilter('refund.failed', filter));
    assert.ok(!matchesFilter('payment.pending', filter));
    assert.ok(!matchesFilter('refundx.failed', filter));
    assert.equal(parseEventFilter('*'), undefined);
    assert.throws(() => parseEventFilter('Payment.Succeeded'), CliUsageError);
    assert.throws(() => parseEventFilter(' , '), CliUsageError);
  });

  it('a given secret must be a Standard Webhooks whsec_ secret', () => {
    const secret = generateWebhookSecret();
    assert.equal(checkSecret(secret), secret);
    assert.throws(() => checkSecret('whsec_short'), CliUsageError);
    assert.throws(() => checkSecret(secret.slice('whsec_'.length)), CliUsageError);
  });
});

describe('CLI amounts and dispatch', () => {
  it('reads --amount exactly for the currency and shows API amounts from the integer', () => {
    assert.equal(amountArg('150000.00', 'IDR'), 150000);
    assert.equal(amountArg('10.10', 'USD'), 10.1);
    assert.equal(amountArg('999999999999.99', 'USD'), 999999999999.99);
    assert.throws(() => amountArg('10.005', 'USD'), /more decimals/);
    assert.throws(() => amountArg('1.5', 'VND'), /more decimals/);
    assert.throws(() => amountArg('-1', 'USD'), /greater than 0/);
    assert.throws(() => amountArg('12abc', 'USD'), /not a decimal number/);
    assert.throws(() => amountArg('1', 'usd'), /unknown currency/);
    assert.equal(humanAmount(150000, 'IDR'), 'IDR 150,000.00');
    assert.equal(humanAmount(10.1, 'USD'), 'USD 10.10');
    assert.equal(humanAmount(0, 'USD'), 'USD 0.00');
    assert.equal(humanAmount(50000, 'VND'), 'VND 50,000');
  });

  it('merchant commands are told apart from operator ones', () => {
    assert.ok(isMerchantCommand(['payments', 'list']));
    assert.ok(isMerchantCommand(['listen', '--forward-to', 'x']));
    assert.ok(isMerchantCommand(['sandbox', 'simulate', 'pay_x']));
    assert.ok(!isMerchantCommand(['sandbox', 'keys']));
    assert.ok(!isMerchantCommand(['merchants', 'create']));
    assert.ok(!isMerchantCommand([]));
  });
});
