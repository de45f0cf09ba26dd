import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseSettlementReportCsv } from '../../src/modules/settlement/settlement-report-csv.ts';

const HEADER = 'provider_reference,attempt_id,currency,gross,fee,net,settled_at';

describe('settlement report CSV', () => {
  it('reads lines exactly, columns in any order, quoted fields, CRLF and a byte-order mark', () => {
    const text =
      '\uFEFFsettled_at,currency,gross,fee,net,attempt_id,provider_reference\r\n' +
      '2026-11-24T10:00:00+07:00,IDR,150000.00,4000,146000,att_1,"mt,1"\r\n' +
      '2026-11-24T03:00:00Z,PHP,1000.50,0,1000.5,att_2,"q""2"\r\n';
    const parsed = parseSettlementReportCsv(text);
    assert.ok(parsed.ok, parsed.ok ? '' : parsed.problems.join('; '));
    if (!parsed.ok) return;
    assert.equal(parsed.entries.length, 2);
    const [a, b] = parsed.entries;
    assert.deepEqual(a, {
      providerReference: 'mt,1',
      attemptId: 'att_1',
      owner: null,
      currency: 'IDR',
      grossMinor: 15_000_000n,
      feeMinor: 400_000n,
      netMinor: 14_600_000n,
      settledAt: new Date('2026-11-24T03:00:00Z'),
    });
    assert.equal(b?.providerReference, 'q"2');
    assert.equal(b?.grossMinor, 100_050n);
  });

  it('refuses the whole file, naming every bad line', () => {
    const text = [
      HEADER,
      'r1,att_1,IDR,150000,4000,146000,2026-11-24T10:00:00Z',
      'r2,att_2,XXX,1,0,1,2026-11-24T10:00:00Z',
      'r3,att_3,IDR,1.5e3x,0,1,2026-11-24T10:00:00Z',
      'r4,att_4,IDR,1,0,1,yesterday',
      'r5,att_5,IDR,1,0,1,2026-11-24T10:00:00',
      ',att_6,IDR,1,0,1,2026-11-24T10:00:00Z',
      'r7,att_7,IDR,-5,0,-5,2026-11-24T10:00:00Z',
    ].join('\n');
    const parsed = parseSettlementReportCsv(text);
    assert.equal(parsed.ok, false);
    if (parsed.ok) return;
    assert.deepEqual(
      parsed.problems.map((p) => p.split(':')[0]),
      ['line 3', 'line 4', 'line 5', 'line 6', 'line 7', 'line 8'],
    );
  });

  it('refuses a file without the columns, an empty one and an unterminated quote', () => {
    assert.deepEqual(parseSettlementReportCsv('order_id,amount\nx,1'), {
      ok: false,
      problems: ['missing columns: provider_reference, attempt_id, currency, gross, fee, net, settled_at'],
    });
    assert.equal(parseSettlementReportCsv('').ok, false);
    assert.deepEqual(parseSettlementReportCsv(`${HEADER}\n"r1,att`), { ok: false, problems: ['unterminated quoted field'] });
    const blankLines = parseSettlementReportCsv(`${HEADER}\n\nr1,att_1,IDR,1,0,1,2026-11-24T10:00:00Z\n\n`);
    assert.ok(blankLines.ok && blankLines.entries.length === 1);
  });
});
