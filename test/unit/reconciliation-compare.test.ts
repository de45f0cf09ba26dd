import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ConnectorRegistry } from '../../src/connectors/core/registry.ts';
import { compareReport, type OurSettlement, type ReportLine } from '../../src/modules/reconciliation/compare-report.ts';
import { checkReconcileInput, MAX_WINDOW_MS } from '../../src/modules/reconciliation/reconcile.ts';
import { numberLines } from '../../src/modules/reconciliation/reconciliation-repo.ts';
import {
  csvField,
  FIRST_PAGE_LINES,
  firstLinePage,
  reconciliationCsv,
  reconciliationLinesView,
} from '../../src/modules/reconciliation/reconciliation-view.ts';
import { createScriptedConnector } from '../harness/scripted-connector.ts';

const window = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-11-02T00:00:00Z') };
const at = (h: number) => new Date(window.from.getTime() + h * 3_600_000);
const ours = (paymentId: string, h = 1): OurSettlement => ({
  paymentId,
  providerReference: `ch_${paymentId}`,
  settlementId: 'stl_1',
  currency: 'IDR',
  grossMinor: 10_000n,
  feeMinor: 100n,
  netMinor: 9_900n,
  settledAt: at(h),
});
const line = (o: OurSettlement, overrides: Partial<ReportLine> = {}): ReportLine => ({
  providerReference: o.providerReference,
  paymentId: o.paymentId,
  currency: o.currency,
  grossMinor: o.grossMinor,
  feeMinor: o.feeMinor,
  netMinor: o.netMinor,
  settledAt: o.settledAt,
  ...overrides,
});

describe('compareReport', () => {
  it('gives each kind by its definition, in the documented order', () => {
    const a = ours('pay_a');
    const b = ours('pay_b', 2);
    const c = ours('pay_c', 3);
    const d = ours('pay_d', 4);
    const e = ours('pay_e', 5);
    const mine = new Map([a, b, c, d, e].map((o) => [o.paymentId, o]));
    const report: ReportLine[] = [
      line(a),
      line(a),
      line(b, { grossMinor: 10_001n, netMinor: 9_901n }),
      line(c, { currency: 'USD' }),
      line(d, { settledAt: window.to }),
      line(ours('pay_x', 6)), // the provider settled it; we did not record it
      line(ours('pay_y', 7), { paymentId: null }),
      // Not settled in ours: compared with what the payer paid (the ingestion refused these).
      line(ours('pay_z', 8)),
      line(ours('pay_w', 9)),
    ];
    const captured = new Map([
      ['pay_x', { currency: 'IDR', amountPaidMinor: 10_000n }],
      ['pay_z', { currency: 'IDR', amountPaidMinor: 9_000n }],
      ['pay_w', { currency: 'USD', amountPaidMinor: 10_000n }],
    ]);
    const result = compareReport(window, report, mine, captured);
    assert.deepEqual(
      result.lines.map((l) => `${l.paymentId ?? '-'}:${l.result}`),
      [
        'pay_a:matched',
        'pay_a:duplicate',
        'pay_b:amount_mismatch',
        'pay_c:currency_mismatch',
        'pay_x:missing_in_ours',
        '-:unknown_reference',
        'pay_z:amount_mismatch',
        'pay_w:currency_mismatch',
        'pay_d:late',
        'pay_e:missing_in_report',
      ],
    );
    assert.equal(result.matched, 1);
    assert.equal(result.discrepancies, 9);
  });

  it('a report equal to our records matches every line, whatever its order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 23 }), { maxLength: 20 }), fc.boolean(), (hours, reverse) => {
        const mine = hours.map((h, i) => ours(`pay_${i}`, h));
        const report = mine.map((o) => line(o));
        if (reverse) report.reverse();
        const r = compareReport(window, report, new Map(mine.map((o) => [o.paymentId, o])));
        return r.discrepancies === 0 && r.matched === mine.length && r.lines.length === mine.length;
      }),
    );
  });
});

describe('reconciliation CSV', () => {
  it('quotes commas, quotes and line breaks, and defuses formulas', () => {
    assert.equal(csvField('plain'), 'plain');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('two\r\nlines'), '"two\r\nlines"');
    assert.equal(csvField('=HYPERLINK("x")'), `"'=HYPERLINK(""x"")"`);
    assert.equal(csvField('+1'), "'+1");
    assert.equal(csvField('@sum'), "'@sum");
  });

  it('renders exact amounts and empty cells for a missing side', () => {
    const o = ours('pay_a');
    const csv = reconciliationCsv([
      { result: 'missing_in_report', paymentId: 'pay_a', providerReference: 'ch,1', report: null, ours: o },
    ]);
    const [header, row, end] = csv.split('\r\n');
    assert.ok(header?.startsWith('result,payment_id,provider_reference,'));
    assert.equal(row, `missing_in_report,pay_a,"ch,1",,,,,,stl_1,IDR,100,1,99,${o.settledAt.toISOString()}`);
    assert.equal(end, '');
  });
});

describe('reconciliation input checks', () => {
  const principal = {
    merchantId: 'mer_1',
    merchantName: 'M',
    environment: 'sandbox' as const,
    apiVersion: '2026-11-01',
    actor: { kind: 'api_key' as const, keyId: 'key_1', keyPrefix: 'sk_test_1' },
  };
  const settling = createScriptedConnector('scripted_settles');
  const scripted = createScriptedConnector('scripted_silent');
  const silent = {
    ...scripted,
    capabilities: { ...scripted.capabilities, supports: { ...scripted.capabilities.supports, settlement: false } },
  };
  const connectors = new ConnectorRegistry([settling, silent], []);
  const from = new Date('2026-11-01T00:00:00Z');

  it('accepts a settling connector and a window of up to 31 days', () => {
    assert.equal(
      checkReconcileInput({ connectors }, principal, {
        connector: 'scripted_settles',
        from,
        to: new Date(from.getTime() + MAX_WINDOW_MS),
      }),
      undefined,
    );
  });

  it('refuses a connector that does not report settlements with 422, bad fields with 400', () => {
    const to = new Date(from.getTime() + 1);
    assert.equal(
      checkReconcileInput({ connectors }, principal, { connector: 'scripted_silent', from, to })?.code,
      'operation_not_supported',
    );
    const bad = checkReconcileInput({ connectors }, principal, { connector: 'nope', from: to, to: from });
    assert.equal(bad?.code, 'invalid_request');
    assert.deepEqual(
      bad?.details.map((d) => (d as { field: string }).field),
      ['to', 'connector'],
    );
    // The other environment: no production connectors are enabled here.
    const prod = checkReconcileInput(
      { connectors },
      { ...principal, environment: 'production' },
      { connector: 'scripted_settles', from, to },
    );
    assert.equal(prod?.code, 'invalid_request');
  });
});

describe('reconciliation lines paging', () => {
  const line = (i: number) => ({
    result: 'missing_in_report' as const,
    paymentId: `pay_${i}`,
    providerReference: `ch_${i}`,
    report: null,
    ours: ours(`pay_${i}`),
  });

  it('shows at most FIRST_PAGE_LINES with the reconciliation, numbered from 1, and says where the rest start', () => {
    for (const count of [0, 1, FIRST_PAGE_LINES, FIRST_PAGE_LINES + 1, 3 * FIRST_PAGE_LINES]) {
      const page = firstLinePage(numberLines(Array.from({ length: count }, (_, i) => line(i))));
      assert.equal(page.lines.length, Math.min(count, FIRST_PAGE_LINES), `${count} lines`);
      assert.deepEqual(
        page.lines.map((l) => l.seq),
        page.lines.map((_, i) => i + 1),
      );
      assert.equal(page.hasMore, count > FIRST_PAGE_LINES, `${count} lines`);
      const view = reconciliationLinesView(page);
      assert.equal(view.next_cursor, count > FIRST_PAGE_LINES ? String(FIRST_PAGE_LINES) : null);
    }
  });
});
