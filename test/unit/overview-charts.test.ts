import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  barChart,
  basisPoints,
  countText,
  maxOf,
  meterChart,
  percentText,
  scaled,
} from '../../src/http/dashboard/charts/index.ts';
import {
  addHistograms,
  bucketText,
  emptyHistogram,
  percentileBucket,
  TTP_BUCKET_BOUNDS_S,
  TTP_BUCKETS,
  ttpBucketOf,
  windowDays,
} from '../../src/modules/overview/index.ts';

/** The overview's pure parts (docs/overview.md): time-to-pay buckets and percentiles, chart arithmetic and markup. */
describe('time-to-pay buckets and percentiles', () => {
  it('puts a duration in the bucket whose range holds it (bounds are lower edges)', () => {
    assert.equal(ttpBucketOf(0), 0);
    assert.equal(ttpBucketOf(9.999), 0);
    assert.equal(ttpBucketOf(10), 1);
    assert.equal(ttpBucketOf(59), 2);
    assert.equal(ttpBucketOf(60), 3);
    assert.equal(ttpBucketOf(604_800), TTP_BUCKETS - 1);
    assert.equal(ttpBucketOf(10 * 604_800), TTP_BUCKETS - 1);
    assert.equal(TTP_BUCKETS, TTP_BUCKET_BOUNDS_S.length + 1);
  });

  it('finds the bucket of the ⌈n·q⌉-th value', () => {
    const h = emptyHistogram();
    h[1] = 5; // 10–30 s
    h[4] = 4; // 2–5 min
    h[8] = 1; // 1–2 h
    assert.equal(percentileBucket(h, 50)?.index, 1); // rank 5 of 10
    assert.equal(percentileBucket(h, 60)?.index, 4); // rank 6
    assert.equal(percentileBucket(h, 90)?.index, 4); // rank 9
    assert.equal(percentileBucket(h, 100)?.index, 8);
    assert.equal(percentileBucket(emptyHistogram(), 50), undefined);
    assert.throws(() => percentileBucket(h, 0));
    assert.equal(bucketText({ index: 4, fromS: 120, toS: 300 }), 'between 2 min and 5 min');
    assert.equal(bucketText({ index: 0, fromS: 0, toS: 10 }), 'under 10 s');
    assert.equal(bucketText({ index: 14, fromS: 604_800, toS: undefined }), '7 d or more');
  });

  it('agrees with a sort of the durations themselves (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 2_000_000 }), { minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 100 }),
        (durations, q) => {
          const h = emptyHistogram();
          for (const d of durations) h[ttpBucketOf(d)] = (h[ttpBucketOf(d)] ?? 0) + 1;
          const sorted = [...durations].sort((a, b) => a - b);
          const exact = sorted[Math.ceil((sorted.length * q) / 100) - 1] as number;
          assert.equal(percentileBucket(h, q)?.index, ttpBucketOf(exact));
        },
      ),
    );
  });

  it('adds histograms bucket by bucket', () => {
    assert.deepEqual(addHistograms([1, 2], [3, 4, 5]).slice(0, 3), [4, 6, 5]);
  });

  it('gives the window of 30 UTC days ending today', () => {
    const days = windowDays(new Date('2026-03-01T23:59:59Z'));
    assert.equal(days.length, 30);
    assert.equal(days[29], '2026-03-01');
    assert.equal(days[0], '2026-01-31');
  });
});

describe('chart arithmetic (integers only)', () => {
  it('scales bars by integer division and never beyond the full length', () => {
    assert.equal(scaled(50n, 100n, 160), 80);
    assert.equal(scaled(1n, 3n, 100), 33);
    assert.equal(scaled(0n, 0n, 100), 0);
    assert.equal(scaled(200n, 100n, 100), 100);
    // Amounts far beyond 2^53 stay exact.
    assert.equal(scaled(9_007_199_254_740_993n * 3n, 9_007_199_254_740_993n * 4n, 160), 120);
    assert.equal(maxOf([3n, 9n, 1n]), 9n);
    assert.equal(maxOf([]), 0n);
  });

  it('writes shares in basis points, rounded down', () => {
    assert.equal(basisPoints(2n, 3n), 6666n);
    assert.equal(percentText(basisPoints(2n, 3n)), '66.66 %');
    assert.equal(percentText(basisPoints(1n, 1n)), '100.00 %');
    assert.equal(percentText(basisPoints(1n, 0n)), '—');
    assert.equal(countText(1234567n), '1,234,567');
  });
});

describe('chart markup', () => {
  it('a bar chart is an image with a label and a table with every number, escaped', () => {
    const out = barChart({
      id: 'c1',
      title: 'Volume <IDR>',
      columns: ['Day', 'Amount'],
      bars: [
        { label: '01', longLabel: '2026-01-01', value: 10n, text: 'IDR 0.10' },
        { label: '02', longLabel: '2026-01-02', value: 20n, text: 'IDR 0.20' },
      ],
    }).toString();
    assert.match(
      out,
      /<svg\s+class="chart-svg"[^>]*role="img"\s+aria-label="Volume &lt;IDR&gt;\. Largest: IDR 0\.20 \(2026-01-02\)\./,
    );
    assert.match(out, /<th scope="row">2026-01-01<\/th>\s*<td class="num">IDR 0\.10<\/td>/);
    assert.doesNotMatch(out, /style=/, 'no inline style: the CSP would refuse it');
    assert.doesNotMatch(out, /<IDR>/);
  });

  it('a meter chart is a table whose bars are hidden from screen readers', () => {
    const out = meterChart({
      id: 'm1',
      title: 'Per channel',
      columns: ['Channel', 'Rate'],
      rows: [{ label: 'bank', value: 5000n, text: '50.00 %' }],
      max: 10_000n,
    }).toString();
    assert.match(out, /<caption>\s*Per channel\s*<\/caption>/);
    assert.match(out, /<svg\s+class="meter"[^>]*aria-hidden="true"/);
    assert.match(out, /<rect x="0" y="0" width="80" height="10" class="bar\b/);
  });
});
