import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { ConnectorCapabilities } from '../../src/connectors/core/connector.ts';
import type { CurrencyCode } from '../../src/lib/currencies.ts';
import { routePayment } from '../../src/modules/routing/route-payment.ts';
import { BUILT_IN_CAPABILITIES } from '../../src/runtime.ts';

const caps = [...BUILT_IN_CAPABILITIES];
const channelArb = fc.constantFrom('bank', 'ewallet', 'counter', 'auto' as const);
const currencyArb = fc.constantFrom('IDR', 'PHP', 'VND', 'USD', 'JPY') as fc.Arbitrary<CurrencyCode>;
const amountArb = fc.bigInt({ min: 1n, max: 10_000_000_000_000n });
const subsetArb = fc.subarray(caps, { minLength: 0 });

describe('routePayment (property)', () => {
  it('every candidate supports the channel, the currency and the amount', () => {
    fc.assert(
      fc.property(channelArb, currencyArb, amountArb, subsetArb, (channel, currency, amountMinor, enabled) => {
        const result = routePayment({ channel, currency, amountMinor }, enabled);
        if (!result.ok) return;
        assert.ok(result.candidates.length > 0);
        for (const candidate of result.candidates) {
          const c = enabled.find((e) => e.connector === candidate.connector) as ConnectorCapabilities;
          assert.ok(c, 'candidate is an enabled connector');
          if (channel !== 'auto') assert.equal(c.channel, channel);
          const bounds = c.currencies[currency];
          assert.ok(bounds !== undefined);
          assert.ok(amountMinor >= bounds.minMinor && amountMinor <= bounds.maxMinor);
          assert.ok(c.instruments.some((i) => i.code === candidate.instrument));
        }
      }),
    );
  });

  it('same input, same decision', () => {
    fc.assert(
      fc.property(channelArb, currencyArb, amountArb, subsetArb, (channel, currency, amountMinor, enabled) => {
        assert.deepEqual(
          routePayment({ channel, currency, amountMinor }, enabled),
          routePayment({ channel, currency, amountMinor }, enabled),
        );
      }),
    );
  });

  it('refuses only when no enabled connector could serve the request', () => {
    fc.assert(
      fc.property(channelArb, currencyArb, amountArb, subsetArb, (channel, currency, amountMinor, enabled) => {
        const result = routePayment({ channel, currency, amountMinor }, enabled);
        const capable = enabled.some((c) => {
          const b = c.currencies[currency];
          return (
            (channel === 'auto' || c.channel === channel) &&
            b !== undefined &&
            amountMinor >= b.minMinor &&
            amountMinor <= b.maxMinor
          );
        });
        assert.equal(result.ok, capable);
      }),
    );
  });
});

describe('routePayment refusals', () => {
  const idr = 'IDR' as CurrencyCode;
  it('names the channel, the currency or the bounds', () => {
    const noChannel = routePayment({ channel: 'bank', currency: idr, amountMinor: 1_000_000n }, []);
    assert.equal(noChannel.ok ? 'ok' : noChannel.code, 'channel_unavailable');
    const noCurrency = routePayment({ channel: 'bank', currency: 'USD' as CurrencyCode, amountMinor: 1000n }, caps);
    assert.equal(noCurrency.ok ? 'ok' : noCurrency.code, 'currency_not_supported');
    const outOfRange = routePayment({ channel: 'counter', currency: idr, amountMinor: 100n }, caps);
    assert.equal(outOfRange.ok ? 'ok' : outOfRange.code, 'amount_out_of_range');
    if (!outOfRange.ok)
      assert.deepEqual(outOfRange.details[0], {
        field: 'amount',
        issue: 'amount_out_of_range',
        connector: 'sandbox_counter',
        min: 10000,
        max: 5000000,
        message: 'between 10000 and 5000000 IDR',
      });
  });
  it('auto orders bank, then e-wallet, then counter, with a trace for each', () => {
    const result = routePayment({ channel: 'auto', currency: idr, amountMinor: 2_000_000n }, caps);
    assert.ok(result.ok);
    assert.deepEqual(
      result.candidates.map((c) => c.channel),
      ['bank', 'ewallet', 'counter'],
    );
    assert.equal(result.trace.length, 3);
  });
});

describe('routePayment with merchant preferences and connector health (property)', () => {
  const channelListArb = fc.shuffledSubarray(['bank', 'ewallet', 'counter'] as const);
  const names = caps.map((c) => c.connector);
  const preferencesArb = fc.record(
    {
      channelOrder: channelListArb,
      connectorOrder: fc.shuffledSubarray(names),
      excludedConnectors: fc.subarray(names),
      instruments: fc.dictionary(fc.constantFrom(...names), fc.constantFrom('BCA', 'BNI', 'DANA', 'INDOMARET', 'NOPE')),
    },
    { requiredKeys: [] },
  );
  const healthArb = fc.dictionary(
    fc.constantFrom(...names),
    fc.record({
      state: fc.constantFrom('healthy', 'degraded', 'down') as fc.Arbitrary<'healthy' | 'degraded' | 'down'>,
      consecutiveFailures: fc.nat(9),
    }),
  );

  const inputArb = fc.tuple(channelArb, currencyArb, amountArb, subsetArb, preferencesArb, healthArb);

  it('every candidate supports the request, is not excluded, and each connector appears once', () => {
    fc.assert(
      fc.property(inputArb, ([channel, currency, amountMinor, enabled, prefs, health]) => {
        const result = routePayment({ channel, currency, amountMinor }, enabled, prefs, health);
        if (!result.ok) return;
        assert.equal(new Set(result.candidates.map((c) => c.connector)).size, result.candidates.length);
        for (const candidate of result.candidates) {
          const c = enabled.find((e) => e.connector === candidate.connector) as ConnectorCapabilities;
          assert.ok(c);
          assert.ok(!(prefs.excludedConnectors ?? []).includes(c.connector));
          if (channel !== 'auto') assert.equal(c.channel, channel);
          const bounds = c.currencies[currency];
          assert.ok(bounds !== undefined && amountMinor >= bounds.minMinor && amountMinor <= bounds.maxMinor);
          assert.ok(c.instruments.some((i) => i.code === candidate.instrument));
          const preferred = prefs.instruments?.[c.connector];
          if (preferred !== undefined && c.instruments.some((i) => i.code === preferred))
            assert.equal(candidate.instrument, preferred);
        }
        // Ranks in the trace follow the candidate order.
        const ranked = result.trace.filter((e) => e.decision === 'candidate');
        assert.deepEqual(
          ranked.map((e) => e.connector),
          result.candidates.map((c) => c.connector),
        );
        assert.deepEqual(
          ranked.map((e) => e.rank),
          result.candidates.map((_, i) => i + 1),
        );
      }),
    );
  });

  it('a connector that is down is never ahead of one that is not', () => {
    fc.assert(
      fc.property(inputArb, ([channel, currency, amountMinor, enabled, prefs, health]) => {
        const result = routePayment({ channel, currency, amountMinor }, enabled, prefs, health);
        if (!result.ok) return;
        const down = result.candidates.map((c) => health[c.connector]?.state === 'down');
        const firstDown = down.indexOf(true);
        if (firstDown >= 0) assert.ok(down.slice(firstDown).every(Boolean));
      }),
    );
  });

  it('same input, same decision', () => {
    fc.assert(
      fc.property(inputArb, ([channel, currency, amountMinor, enabled, prefs, health]) => {
        const request = { channel, currency, amountMinor };
        assert.deepEqual(routePayment(request, enabled, prefs, health), routePayment(request, enabled, prefs, health));
      }),
    );
  });

  it('health and preferences only reorder: the set of candidates is the same as without them, minus exclusions', () => {
    fc.assert(
      fc.property(inputArb, ([channel, currency, amountMinor, enabled, prefs, health]) => {
        const plain = routePayment({ channel, currency, amountMinor }, enabled);
        const tuned = routePayment({ channel, currency, amountMinor }, enabled, prefs, health);
        const names = (r: typeof plain) => (r.ok ? r.candidates.map((c) => c.connector).sort() : []);
        const expected = names(plain).filter((n) => !(prefs.excludedConnectors ?? []).includes(n));
        assert.deepEqual(names(tuned), expected);
      }),
    );
  });

  it('auto follows the merchant channel order', () => {
    const result = routePayment({ channel: 'auto', currency: 'IDR' as CurrencyCode, amountMinor: 2_000_000n }, caps, {
      channelOrder: ['counter', 'ewallet'],
    });
    assert.ok(result.ok);
    assert.deepEqual(
      result.candidates.map((c) => c.channel),
      ['counter', 'ewallet', 'bank'],
    );
  });
});
